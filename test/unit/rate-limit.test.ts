import { describe, expect, it } from 'vitest';
import { sourceKeyOf } from '../../api/middleware/rate-limit';

describe('sourceKeyOf (the token-source bucket of a peer address)', () => {
  it('IPv4 as is; IPv4-mapped IPv6 in every spelling as its IPv4 address', () => {
    expect(sourceKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceKeyOf('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('other IPv6 by its /64 prefix, zone id dropped, however written', () => {
    expect(sourceKeyOf('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(sourceKeyOf('2001:0DB8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(sourceKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceKeyOf('::1')).toBe('0:0:0:0::/64');
  });
});
