import { createCircuitBreaker } from './circuit-breaker.ts';

describe('createCircuitBreaker', () => {
  let now = 0;
  const breaker = () => createCircuitBreaker({ failures: 3, cooldownMs: 1000, now: () => now });
  beforeEach(() => {
    now = 1_000_000;
  });

  it('opens after the configured consecutive failures, not before', () => {
    const circuit = breaker();
    circuit.recordFailure('resend');
    circuit.recordFailure('resend');
    expect(circuit.state('resend')).toBe('closed');
    circuit.recordFailure('resend');
    expect(circuit.state('resend')).toBe('open');
    expect(circuit.state('smtp')).toBe('closed'); // per provider
  });

  it('a success in between starts the count again', () => {
    const circuit = breaker();
    circuit.recordFailure('resend');
    circuit.recordFailure('resend');
    circuit.recordSuccess('resend');
    circuit.recordFailure('resend');
    circuit.recordFailure('resend');
    expect(circuit.state('resend')).toBe('closed');
  });

  it('is half-open after the cool-down: a success closes it, a failure opens it again for a whole cool-down', () => {
    const circuit = breaker();
    for (let i = 0; i < 3; i += 1) circuit.recordFailure('resend');
    now += 999;
    expect(circuit.state('resend')).toBe('open');
    now += 1;
    expect(circuit.state('resend')).toBe('half_open');
    circuit.recordFailure('resend');
    expect(circuit.state('resend')).toBe('open');
    now += 1000;
    expect(circuit.state('resend')).toBe('half_open');
    circuit.recordSuccess('resend');
    expect(circuit.states()).toEqual({ resend: 'closed' });
  });
});
