export type CircuitState = 'closed' | 'open' | 'half_open';

export type CircuitBreaker = {
  /** `open` while a provider cools down after its run of failures; `half_open` once the cool-down is over (one try decides). */
  state(provider: string): CircuitState;
  recordSuccess(provider: string): void;
  recordFailure(provider: string): void;
  /** Every provider that has been seen, with its state (for /metrics). */
  states(): Record<string, CircuitState>;
};

/**
 * A circuit breaker per provider, in this process: after `failures` consecutive failures a provider is `open` for
 * `cooldownMs`, then `half_open`: the next call decides (a success closes it, a failure opens it again for another
 * cool-down). Each process learns on its own; a few calls per replica are the price of needing no shared state.
 * @example const breaker = createCircuitBreaker({ failures: 5, cooldownMs: 30_000 }); if (breaker.state('resend') !== 'open') ...
 */
export function createCircuitBreaker(options: { failures: number; cooldownMs: number; now?: () => number }): CircuitBreaker {
  const now = options.now ?? Date.now;
  const circuits = new Map<string, { consecutiveFailures: number; openUntil: number | null }>();
  const circuitOf = (provider: string) => {
    let circuit = circuits.get(provider);
    if (!circuit) {
      circuit = { consecutiveFailures: 0, openUntil: null };
      circuits.set(provider, circuit);
    }
    return circuit;
  };
  const state = (provider: string): CircuitState => {
    const { openUntil } = circuitOf(provider);
    if (openUntil === null) return 'closed';
    return now() < openUntil ? 'open' : 'half_open';
  };
  return {
    state,
    recordSuccess(provider) {
      circuits.set(provider, { consecutiveFailures: 0, openUntil: null });
    },
    recordFailure(provider) {
      const circuit = circuitOf(provider);
      circuit.consecutiveFailures += 1;
      // a failed try after the cool-down opens it again at once; otherwise the count decides
      if (state(provider) === 'half_open' || circuit.consecutiveFailures >= options.failures) circuit.openUntil = now() + options.cooldownMs;
    },
    states: () => Object.fromEntries([...circuits.keys()].map((provider) => [provider, state(provider)])),
  };
}
