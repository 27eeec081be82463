/** Ownership challenges without a Logpush directory, and where challenge files may go. */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServer } from '../../src/server/index.js';
import { challengeLocation, fileDestinationDir, needsOwnershipChallenge } from '../../src/server/logpush-ownership.js';

const H = { 'x-auth-email': 'a@example.com', 'x-auth-key': 'a-key-000001', 'content-type': 'application/json' };

describe('ownership challenges', () => {
  it('without a Logpush directory: the token is issued, answered in a header, named in message; it makes the job', async () => {
    const app = await createServer({ users: [{ email: 'a@example.com', key: 'a-key-000001', accounts: ['acc'], zones: ['z'] }] });
    try {
      const destination_conf = 'gs://bucket/logs/{DATE}';
      const res = await app.inject({ method: 'POST', url: '/client/v4/zones/z/logpush/ownership', headers: H, payload: { destination_conf } });
      expect(res.statusCode).toBe(200);
      const token = res.headers['x-rulekit-ownership-challenge'] as string;
      expect(JSON.parse(res.body).result).toMatchObject({ valid: true, filename: expect.stringMatching(/^logs\/ownership-challenge-[0-9a-f]{8}\.txt$/), message: expect.stringContaining('x-rulekit-ownership-challenge') });
      const job = { dataset: 'http_requests', destination_conf };
      const refused = await app.inject({ method: 'POST', url: '/client/v4/zones/z/logpush/jobs', headers: H, payload: job });
      expect(JSON.parse(refused.body).errors[0]).toMatchObject({ source: { pointer: '/ownership_challenge' }, meta: { code: 'server-ownership-challenge-invalid' } });
      const created = await app.inject({ method: 'POST', url: '/client/v4/zones/z/logpush/jobs', headers: H, payload: { ...job, ownership_challenge: token } });
      expect(created.statusCode).toBe(200);
      expect(JSON.parse(created.body).result).not.toHaveProperty('ownership_challenge');
      const file = await app.inject({ method: 'POST', url: '/client/v4/zones/z/logpush/ownership', headers: H, payload: { destination_conf: 'file:///tmp/x' } });
      expect(file.statusCode).toBe(400);
      expect(JSON.parse(file.body).errors[0].message).toContain('--logpush-dir');
    } finally {
      await app.close();
    }
  });

  it('the destinations that need one are the docs\' table\'s, and file://', () => {
    const yes = ['s3://b?region=us-east-1', 'gs://b', 'azure://c?sig=x', 'sumo://h/receiver/v1/http/t', 'file:///tmp/x'];
    const no = ['r2://b?account-id=a&access-key-id=k&secret-access-key=s', 'https://h/p', 'splunk://h/services/collector/raw?channel=c&header_Authorization=x', 'datadog://h/v1/input?header_DD-API-KEY=k', 'bucket'];
    expect(yes.filter(needsOwnershipChallenge)).toEqual(yes);
    expect(no.filter(needsOwnershipChallenge)).toEqual([]);
  });

  it('files stay inside the Logpush directory whatever the destination says', () => {
    const dir = resolve('/srv/logpush');
    expect(challengeLocation('s3://b/a/../../../etc/{DATE}?region=us-east-1', dir, 'f.txt').dir).toBe(join(dir, 's3', 'b', 'a', 'etc'));
    expect(challengeLocation('s3://../x?region=us-east-1', dir, 'f.txt').dir).toBe(join(dir, 's3', '_', 'x'));
    expect(challengeLocation('gs://b%2F..%2F..', dir, 'f.txt').dir).toBe(join(dir, 'gs', 'b_2F.._2F..'));
    expect(fileDestinationDir(`file://${dir}/../etc`, dir)).toHaveProperty('error');
    expect(fileDestinationDir(`file://${dir}/logs/{DATE}`, dir)).toEqual({ dir: join(dir, 'logs') });
    expect(fileDestinationDir('file://relative/x', dir)).toHaveProperty('error');
  });
});
