import { generateKey, hashKey, keyPrefix, modeOfKey, sameHash } from './key-secret.ts';

describe('key secrets', () => {
  it('generates live and test keys of 192 random bits that are never the same', () => {
    const live = generateKey('live');
    expect(live).toMatch(/^sk_live_[A-Za-z0-9_-]{32}$/);
    expect(generateKey('test')).toMatch(/^sk_test_[A-Za-z0-9_-]{32}$/);
    expect(generateKey('live')).not.toBe(live);
  });

  it('hashes with SHA-256 (known answer) and shows a 12-character prefix', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(keyPrefix('sk_live_ABCDEFGH')).toBe('sk_live_ABCD');
  });

  it('tells the mode of a well-formed key and rejects anything else', () => {
    expect(modeOfKey(generateKey('test'))).toBe('test');
    expect(modeOfKey('sk_live_short')).toBeNull();
    expect(modeOfKey(`pk_live_${'a'.repeat(32)}`)).toBeNull();
  });

  it('compares digests', () => {
    expect(sameHash(hashKey('a'), hashKey('a'))).toBe(true);
    expect(sameHash(hashKey('a'), hashKey('b'))).toBe(false);
    expect(sameHash(hashKey('a'), 'abcd')).toBe(false);
  });
});
