/**
 * `client.logpush.*` of the official client against the server: datasets (fields, jobs), ownership
 * challenges (written into the server's Logpush directory, as the service writes into a bucket),
 * destination and origin checks, Instant Logs, and jobs to destinations that need a challenge, with
 * typed successes and typed errors. Run against each store (sdk.sqlite.test.ts, sdk.postgres.test.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Cloudflare from 'cloudflare';
import type { JobCreateParams, JobUpdateParams } from 'cloudflare/resources/logpush/jobs';
import type { FieldGetParams } from 'cloudflare/resources/logpush/datasets/fields';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerChecker } from '../helpers/checked-answers.js';
import { createServer, type Store } from '../../src/server/index.js';
import { getDataset } from '../../src/logpush/index.js';
import { expectApiError, USERS } from './sdk-suite.js';

type Dataset = Parameters<Cloudflare['logpush']['datasets']['fields']['get']>[0];

export function sdkLogpushSuite(name: string, openStore: () => Promise<Store>): void {
  describe(`client.logpush.* against the server (${name})`, () => {
    let app: FastifyInstance;
    /** Every answer the official client receives, checked against Cloudflare's OpenAPI document. */
    const answers = new AnswerChecker();
    let store: Store;
    let alice: Cloudflare;
    let bob: Cloudflare;
    let dir: string;
    const zone_id = 'zone-alice';
    const account_id = 'acc-alice';

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rulekit-logpush-'));
      store = await openStore();
      app = await createServer({ users: USERS, store, logpushDir: dir });
      const baseURL = `${await app.listen({ port: 0, host: '127.0.0.1' })}/client/v4`;
      alice = new Cloudflare({ baseURL, apiEmail: USERS[0]!.email, apiKey: USERS[0]!.key, maxRetries: 0, fetch: answers.fetch });
      bob = new Cloudflare({ baseURL, apiEmail: USERS[1]!.email, apiKey: USERS[1]!.key, maxRetries: 0, fetch: answers.fetch });
    });
    afterAll(async () => {
      await app?.close();
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('datasets.fields.get: the catalog\'s fields and descriptions, per scope; unknown or other-scope datasets are 404s', async () => {
      const fields = await alice.logpush.datasets.fields.get('http_requests', { zone_id });
      const catalog = getDataset('http_requests', 'zone')!;
      expect(Object.keys(fields)).toEqual(catalog.fields.map((f) => f.name));
      expect(fields['ClientIP']).toBe(catalog.byName.get('ClientIP')!.description);
      const gateway = await alice.logpush.datasets.fields.get('gateway_dns', { account_id });
      expect(Object.keys(gateway).length).toBe(getDataset('gateway_dns', 'account')!.fields.length);
      const other = await expectApiError(alice.logpush.datasets.fields.get('gateway_dns', { zone_id }), Cloudflare.NotFoundError, 'server-dataset-not-found');
      expect(other.message).toContain('/accounts/{account_id}/logpush/datasets/gateway_dns');
      const typo = await expectApiError(alice.logpush.datasets.fields.get('http_request' as Dataset, { zone_id }), Cloudflare.NotFoundError, 'server-dataset-not-found');
      expect((typo.errors[0] as { message: string }).message).toContain('did you mean "http_requests"');
      await expectApiError(bob.logpush.datasets.fields.get('http_requests', <FieldGetParams>{ zone_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
    });

    it('ownership.create writes the challenge into a file:// destination; validate and jobs.create take only that token', async () => {
      const destination_conf = `file://${dir}/zone-logs/{DATE}`;
      const { data: challenge, response } = await alice.logpush.ownership.create({ zone_id, destination_conf }).withResponse();
      expect(challenge).toMatchObject({ message: '', valid: true });
      expect(challenge!.filename).toMatch(new RegExp(`^${dir}/zone-logs/ownership-challenge-[0-9a-f]{8}\\.txt$`));
      const token = readFileSync(challenge!.filename!, 'utf8');
      expect(response.headers.get('x-rulekit-ownership-challenge')).toBe(token);
      expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

      expect(await alice.logpush.ownership.validate({ zone_id, destination_conf, ownership_challenge: token })).toEqual({ valid: true });
      expect(await alice.logpush.ownership.validate({ zone_id, destination_conf, ownership_challenge: 'x' + token })).toEqual({ valid: false });
      // Bound to the owner and the destination: another zone's or another destination's check fails.
      expect(await alice.logpush.ownership.validate({ zone_id, destination_conf: `file://${dir}/other`, ownership_challenge: token })).toEqual({ valid: false });
      expect(await alice.logpush.ownership.validate({ account_id, destination_conf, ownership_challenge: token })).toEqual({ valid: false });

      const body = { zone_id, name: 'local', dataset: 'http_requests' as const, destination_conf, output_options: { field_names: ['ClientIP', 'RayID'], timestamp_format: 'rfc3339' as const } };
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams>body), Cloudflare.BadRequestError, 'server-ownership-challenge-invalid', '/ownership_challenge');
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams>{ ...body, ownership_challenge: '00000000000000000000' }), Cloudflare.BadRequestError, 'server-ownership-challenge-invalid', '/ownership_challenge');
      const job = await alice.logpush.jobs.create(<JobCreateParams>{ ...body, ownership_challenge: token });
      expect(job).toMatchObject({ name: 'local', dataset: 'http_requests', destination_conf, enabled: false });
      // Outside the directory, file:// is refused.
      await expectApiError(alice.logpush.ownership.create({ zone_id, destination_conf: 'file:///etc/logs' }), Cloudflare.BadRequestError, 'server-invalid-member', '/destination_conf');
      await alice.logpush.jobs.delete(job!.id!, { zone_id });
    });

    it('ownership for a bucket: the file goes under <dir>/<scheme>/<bucket>/<path>; s3 jobs need the token; no-challenge schemes say so', async () => {
      const destination_conf = 's3://logs-bucket/http/{DATE}?region=us-east-1';
      const challenge = await alice.logpush.ownership.create({ account_id, destination_conf });
      expect(challenge!.filename).toMatch(/^http\/ownership-challenge-[0-9a-f]{8}\.txt$/);
      const token = readFileSync(join(dir, 's3', 'logs-bucket', challenge!.filename!), 'utf8');
      const body = { account_id, name: 'fw', dataset: 'firewall_events' as const, destination_conf, logpull_options: 'fields=ClientIP,RayID&timestamps=rfc3339' };
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams>body), Cloudflare.BadRequestError, 'ownership-challenge-missing');
      const job = await alice.logpush.jobs.create(<JobCreateParams>{ ...body, ownership_challenge: token });
      expect(job!.id).toBeGreaterThan(0);
      // Moving a job to another destination that needs a challenge needs its token too.
      await expectApiError(alice.logpush.jobs.update(job!.id!, <JobUpdateParams>{ account_id, destination_conf: 'gs://other-bucket/x' }), Cloudflare.BadRequestError, 'server-ownership-challenge-invalid', '/ownership_challenge');
      expect(await alice.logpush.jobs.update(job!.id!, <JobUpdateParams>{ account_id, destination_conf: 'https://logs.example.com/fw' })).toMatchObject({ destination_conf: 'https://logs.example.com/fw' });
      const none = await alice.logpush.ownership.create({ account_id, destination_conf: 'https://logs.example.com/in' });
      expect(none).toMatchObject({ valid: false, filename: '' });
      await expectApiError(alice.logpush.ownership.create({ account_id, destination_conf: 'ftp://x/y' }), Cloudflare.BadRequestError, 'destination-unknown-scheme', '/destination_conf');
      await expectApiError(alice.logpush.ownership.create(<never>{ account_id }), Cloudflare.BadRequestError, 'server-invalid-member', '/destination_conf');
      await alice.logpush.jobs.delete(job!.id!, { account_id });
    });

    it('datasets.jobs.get and validate.destinationExists see the owner\'s jobs only', async () => {
      const dest = 'https://logs.example.com/dns';
      const job = await alice.logpush.jobs.create(<JobCreateParams>{ zone_id, name: 'dns', dataset: 'dns_logs', destination_conf: dest, enabled: true, max_upload_records: 1000, max_upload_interval_seconds: 30, frequency: 'low' });
      expect(job).toMatchObject({ enabled: true, max_upload_records: 1000, max_upload_interval_seconds: 30, frequency: 'low' });
      expect((await alice.logpush.datasets.jobs.get('dns_logs', { zone_id })).result.map((j) => j!.id)).toEqual([job!.id]);
      expect((await alice.logpush.datasets.jobs.get('http_requests', { zone_id })).result).toEqual([]);
      await expectApiError(alice.logpush.datasets.jobs.get('gateway_http', { zone_id }), Cloudflare.NotFoundError, 'server-dataset-not-found');
      expect(await alice.logpush.validate.destinationExists({ zone_id, destination_conf: dest })).toEqual({ exists: true });
      expect(await alice.logpush.validate.destinationExists({ account_id, destination_conf: dest })).toEqual({ exists: false });
      expect(await alice.logpush.validate.destinationExists({ zone_id, destination_conf: `${dest}/x` })).toEqual({ exists: false });
      await expectApiError(bob.logpush.validate.destinationExists({ zone_id, destination_conf: dest }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      await alice.logpush.jobs.delete(job!.id!, { zone_id });
      expect(await alice.logpush.validate.destinationExists({ zone_id, destination_conf: dest })).toEqual({ exists: false });
    });

    it('validate.destination and validate.origin answer {message, valid} from rulekit\'s validators', async () => {
      expect(await alice.logpush.validate.destination({ zone_id, destination_conf: 's3://b/logs?region=us-west-2' })).toEqual({ message: '', valid: true });
      const bad = await alice.logpush.validate.destination({ zone_id, destination_conf: 's3://b/logs' });
      expect(bad).toMatchObject({ valid: false });
      expect(bad!.message).toContain('"region"');
      expect(await alice.logpush.validate.origin({ account_id, logpull_options: 'fields=RayID,ClientIP,EdgeStartTimestamp&timestamps=rfc3339' })).toEqual({ message: '', valid: true });
      const origin = await alice.logpush.validate.origin({ account_id, logpull_options: 'fields=RayID&timestamps=iso' });
      expect(origin).toMatchObject({ valid: false });
      expect(origin!.message).toContain('timestamps=iso');
      expect(await alice.logpush.validate.origin({ account_id, logpull_options: null })).toEqual({ message: '', valid: true });
      await expectApiError(alice.logpush.validate.origin(<never>{ account_id, logpull_options: 5 }), Cloudflare.BadRequestError, 'server-invalid-member', '/logpull_options');
      await expectApiError(alice.logpush.validate.destination(<never>{ zone_id }), Cloudflare.BadRequestError, 'server-invalid-member', '/destination_conf');
    });

    it('edge.create and edge.get: an Instant Logs session checked (fields, filter, sample) and kept, one per zone', async () => {
      expect((await alice.logpush.edge.get({ zone_id })).result).toEqual([]);
      // The Instant Logs page writes "neq"; the Filters page it points to (and rulekit's checker) "!eq".
      const filter = JSON.stringify({ where: { and: [{ key: 'ClientCountry', operator: '!eq', value: 'ca' }] } });
      const first = await alice.logpush.edge.create({ zone_id, fields: 'ClientIP,ClientRequestHost,EdgeResponseStatus,RayID', filter, sample: 100 });
      expect(first).toMatchObject({ fields: 'ClientIP,ClientRequestHost,EdgeResponseStatus,RayID', filter, sample: 100 });
      expect(first!.session_id).toMatch(/^[0-9a-f]{32}$/);
      expect(first!.destination_conf).toBe(`wss://logs.cloudflare.com/instant-logs/ws/sessions/${first!.session_id}`);
      expect((await alice.logpush.edge.get({ zone_id })).result).toEqual([first]);
      const second = await alice.logpush.edge.create({ zone_id, fields: 'ClientIP' });
      expect(second).toMatchObject({ sample: 1, filter: '' });
      expect((await alice.logpush.edge.get({ zone_id })).result).toEqual([second]);

      await expectApiError(alice.logpush.edge.create({ zone_id, fields: 'ClientIP,ClientIp' }), Cloudflare.BadRequestError, 'logpull-unknown-field', '/fields');
      const e = await expectApiError(alice.logpush.edge.create({ zone_id, fields: 'ClientIP,ClientIp' }), Cloudflare.BadRequestError);
      expect((e.errors[0] as unknown as { meta: { range: { start: number; end: number } } }).meta.range).toEqual({ start: 9, end: 17 });
      await expectApiError(alice.logpush.edge.create({ zone_id, sample: 0 }), Cloudflare.BadRequestError, 'server-invalid-member', '/sample');
      await expectApiError(alice.logpush.edge.create({ zone_id, filter: JSON.stringify({ where: { key: 'NoSuchField', operator: 'eq', value: 1 } }) }), Cloudflare.BadRequestError, undefined);
      await expectApiError(bob.logpush.edge.get({ zone_id }), Cloudflare.PermissionDeniedError, 'server-forbidden');
      expect((await alice.logpush.edge.get({ zone_id })).result).toEqual([second]);
    });

    it('jobs.*: settings typed as the schema types them, refused with pointers', async () => {
      const base = { zone_id, dataset: 'http_requests' as const, destination_conf: 'https://logs.example.com/h' };
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams>{ ...base, max_upload_bytes: 1000 }), Cloudflare.BadRequestError, 'job-member-range', '/max_upload_bytes');
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams><unknown>{ ...base, enabled: 'yes' }), Cloudflare.BadRequestError, 'job-member-type', '/enabled');
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams><unknown>{ ...base, kind: 'instant-logs' }), Cloudflare.BadRequestError, 'job-member-type', '/kind');
      await expectApiError(alice.logpush.jobs.create(<JobCreateParams><unknown>{ ...base, output_options: { output_type: 'xml' } }), Cloudflare.BadRequestError, 'job-member-type', '/output_options/output_type');
      const job = await alice.logpush.jobs.create(<JobCreateParams>{ ...base, kind: 'edge', max_upload_bytes: 0, filter_attack_traffic: true, output_options: { output_type: 'csv', field_names: ['ClientIP'], timestamp_format: 'rfc3339ms', batch_prefix: null } });
      expect(job).toMatchObject({ kind: 'edge', max_upload_bytes: 0, output_options: { output_type: 'csv' } });
      expect((await alice.logpush.jobs.list({ zone_id })).result.map((j) => j!.id)).toEqual([job!.id]);
      expect(await alice.logpush.jobs.get(job!.id!, { zone_id })).toEqual(job);
      await expectApiError(alice.logpush.jobs.update(job!.id!, <JobUpdateParams><unknown>{ zone_id, max_upload_interval_seconds: 10 }), Cloudflare.BadRequestError, 'job-member-range', '/max_upload_interval_seconds');
      expect(await alice.logpush.jobs.update(job!.id!, <JobUpdateParams>{ zone_id, max_upload_interval_seconds: 300 })).toMatchObject({ max_upload_interval_seconds: 300 });
      await alice.logpush.jobs.delete(job!.id!, { zone_id });
      await expectApiError(alice.logpush.jobs.get(job!.id!, { zone_id }), Cloudflare.NotFoundError, 'server-job-not-found');
    });

    it('every answer the client received conforms to Cloudflare\'s OpenAPI document', () => answers.expectConforming());
  });
}
