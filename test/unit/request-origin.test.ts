import { describe, expect, it } from 'vitest';
import { requestOrigin } from '../../functions/security/security-events';

const event = (sourceIp: string, headers: Record<string, string>) => ({ requestContext: { http: { sourceIp, userAgent: 'Browser/1' } }, headers });

describe('requestOrigin: the viewer, not the CloudFront edge', () => {
  it('through CloudFront (X-Amz-Cf-Id), the viewer is the X-Forwarded-For entry CloudFront appended before the edge', () => {
    expect(requestOrigin(event('130.176.1.9', { 'x-amz-cf-id': 'abc', 'x-forwarded-for': '203.0.113.7, 130.176.1.9' })).ipAddress).toBe('203.0.113.7');
    // A viewer's own X-Forwarded-For comes first and is not believed.
    expect(requestOrigin(event('130.176.1.9', { 'x-amz-cf-id': 'abc', 'x-forwarded-for': '10.0.0.1, 198.51.100.4, 130.176.1.9' })).ipAddress).toBe('198.51.100.4');
    expect(requestOrigin(event('130.176.1.9', { 'x-amz-cf-id': 'abc', 'x-forwarded-for': '2001:db8::1, 130.176.1.9' })).ipAddress).toBe('2001:db8::1');
    // API Gateway did not append the edge: the last entry is CloudFront's viewer.
    expect(requestOrigin(event('130.176.1.9', { 'x-amz-cf-id': 'abc', 'x-forwarded-for': '203.0.113.7' })).ipAddress).toBe('203.0.113.7');
  });

  it('without CloudFront (locally, or straight at the API), the source address; junk never becomes an address', () => {
    expect(requestOrigin(event('127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })).ipAddress).toBe('127.0.0.1');
    expect(requestOrigin(event('130.176.1.9', { 'x-amz-cf-id': 'abc', 'x-forwarded-for': '<script>, 130.176.1.9' })).ipAddress).toBe('130.176.1.9');
    expect(requestOrigin(event('130.176.1.9', { 'x-amz-cf-id': 'abc' })).ipAddress).toBe('130.176.1.9');
    expect(requestOrigin(event('127.0.0.1', {})).userAgent).toBe('Browser/1');
  });
});
