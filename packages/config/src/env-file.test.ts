import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, loadEnvFile } from './index.ts';

describe('loadEnvFile', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tidings-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('adds the variables of .env in the directory, the ones already set winning', () => {
    writeFileSync(path.join(dir, '.env'), '# a second instance\nAPI_PORT=4000\nREDIS_PREFIX=second\nDATABASE_PASSWORD="p@ss/word"\n');
    const env: Record<string, string | undefined> = { REDIS_PREFIX: 'from-the-shell' };
    expect(loadEnvFile(env, dir)).toBe(path.join(dir, '.env'));
    expect(env).toEqual({ REDIS_PREFIX: 'from-the-shell', API_PORT: '4000', DATABASE_PASSWORD: 'p@ss/word' });
    expect(loadConfig(env).apiPort).toBe(4000);
  });

  it('reads the file TIDINGS_ENV_FILE names instead, and refuses one that does not exist', () => {
    writeFileSync(path.join(dir, 'second.env'), 'API_PORT=5000\n');
    const env: Record<string, string | undefined> = { TIDINGS_ENV_FILE: 'second.env' };
    loadEnvFile(env, dir);
    expect(env.API_PORT).toBe('5000');
    expect(() => loadEnvFile({ TIDINGS_ENV_FILE: 'missing.env' }, dir)).toThrow(ConfigError);
  });

  it('does nothing without a .env', () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'tidings-env-none-'));
    const env = { API_PORT: '3000' };
    expect(loadEnvFile(env, empty)).toBeUndefined();
    expect(env).toEqual({ API_PORT: '3000' });
    rmSync(empty, { recursive: true });
  });
});
