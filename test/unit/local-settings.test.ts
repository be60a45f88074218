import { describe, expect, it } from 'vitest';
import { defaultPorts, portsFromEnv } from '../../bin/local/settings';

describe('portsFromEnv', () => {
  it('uses the defaults, an offset, or single overrides', () => {
    expect(portsFromEnv({})).toEqual(defaultPorts);
    expect(portsFromEnv({ LOCAL_PORT_OFFSET: '100' }).app).toBe(3100);
    expect(portsFromEnv({ DYNAMODB_PORT: '8123' }).dynamodb).toBe(8123);
    // The local SCIM directory moves like the other parts.
    expect(portsFromEnv({ LOCAL_PORT_OFFSET: '100' }).scim).toBe(defaultPorts.scim + 100);
    expect(portsFromEnv({ SCIM_PORT: '9999' }).scim).toBe(9999);
  });

  it('refuses a port that is not a number', () => {
    expect(() => portsFromEnv({ APP_PORT: 'eighty' })).toThrow('APP_PORT must be a port number');
  });
});
