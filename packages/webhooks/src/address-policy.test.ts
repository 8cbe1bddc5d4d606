import { refusalOf } from './address-policy.ts';

const strict = { allowLoopback: false };
const loopbackOk = { allowLoopback: true };

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'cloud metadata'],
    ['168.63.129.16', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud metadata'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
    ['192.0.2.1', 'reserved'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::127.0.0.1', 'loopback'],
    ['::a9fe:a9fe', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['::ffff:0:a00:1', 'rfc6145'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b:1::a9fe:a9fe', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(refusalOf(address, strict)).toBe(reason);
  });

  it('allows global unicast, IPv4 and IPv6, also IPv4-mapped', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) expect(refusalOf(address, strict)).toBeNull();
  });

  it('WEBHOOK_ALLOW_LOOPBACK allows loopback and only loopback', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) expect(refusalOf(address, loopbackOk)).toBeNull();
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00::1', '0.0.0.0', '100.64.0.1', '::7f00:1', '64:ff9b::7f00:1']) expect(refusalOf(address, loopbackOk)).not.toBeNull();
  });
});
