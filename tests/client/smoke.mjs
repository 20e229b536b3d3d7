// Smoke suite of mod_acctapi with a published client of the public v4 API:
// @linode/api-v4, pinned in package.json, used as its users use it.  The only
// settings are the base URL and the token; the library's own validation of
// request bodies stays on.
//
//   cd tests/client && npm ci && \
//   ACCTAPI_URL=http://127.0.0.1:8080/v4 ACCTAPI_TOKEN=<64 hex> node smoke.mjs
//
// Environment:
//   ACCTAPI_URL            the module's base URL, ending in /v4 (required)
//   ACCTAPI_TOKEN          a token of an unrestricted user with all scopes (required)
//   ACCTAPI_WAIT_SECONDS   how long to wait for a database status (default 120)
//   ACCTAPI_CLOCK_OFFSET   seconds the module's test clock is ahead of this
//                          machine's (default 0): a token's expiry is a day
//                          ahead of the module's clock, not of this machine's
//   ACCTAPI_SMOKE_KEEP_GOING=1  report every failing step instead of stopping
//                          at the first (the exit status is 1 all the same)
//
// One line per step: "ok", "FAIL" (with the request and the response body),
// "WAIT" when a database must finish provisioning or updating (with
// AcctapiTestClock On, advance the clock: acctapi-admin clock advance 40m),
// "note" for each field the library declares that the module leaves out
// (see lib/shapes.mjs).  Everything created carries a random suffix and is
// removed at the end.  Exit status 0 when every step passed.

import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';

import * as linode from '@linode/api-v4';

import { checkShape } from './lib/shapes.mjs';
import { Suite, pointClientAt, useToken } from './lib/run.mjs';

const BASE_URL = process.env.ACCTAPI_URL;
const TOKEN = process.env.ACCTAPI_TOKEN;
const WAIT_SECONDS = Number(process.env.ACCTAPI_WAIT_SECONDS || 120);
const CLOCK_OFFSET_MS = Number(process.env.ACCTAPI_CLOCK_OFFSET || 0) * 1000;

if (!BASE_URL || !TOKEN) {
    console.error('usage: ACCTAPI_URL=<base url ending in /v4> ACCTAPI_TOKEN=<token> node smoke.mjs');
    process.exit(2);
}

const suite = new Suite({ keepGoing: process.env.ACCTAPI_SMOKE_KEEP_GOING === '1' });
const run = randomBytes(4).toString('hex');   // unique names: the DB is shared
const step = (name, fn) => suite.step(name, fn);
const shape = (name, value) => checkShape(name, value, suite.notes);

/* Every item of a paginated list function, following pages. */
async function all(list, filter) {
    const items = [];
    for (let page = 1; ; page++) {
        const res = await list({ page, page_size: 500 }, filter);
        assertPage(res);
        items.push(...res.data);
        if (page >= res.pages) return items;
    }
}

function assertPage(res) {
    assert.equal(typeof res, 'object', 'a page is an object');
    assert.ok(Array.isArray(res.data), 'page.data is an array');
    for (const k of ['page', 'pages', 'results']) {
        assert.ok(Number.isInteger(res[k]), `page.${k} is an integer: ${JSON.stringify(res)}`);
    }
}

/* The timestamp layout docs/conventions.md fixes and the Go and Python clients parse. */
function assertTimestamp(v, what) {
    assert.match(v, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, `${what}: ${v}`);
}

function apiTimestamp(date) {
    return date.toISOString().slice(0, 19);
}

/* An OpenSSH ed25519 public key line (the module checks the key's form). */
function sshPublicKey() {
    const { publicKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
    const field = (b) => {
        const len = Buffer.alloc(4);
        len.writeUInt32BE(b.length);
        return Buffer.concat([len, b]);
    };
    const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]);
    return `ssh-ed25519 ${blob.toString('base64')} smoke@${run}`;
}

/* Runs a call that must fail with `httpStatus`; returns the error body. */
async function statusOf(httpStatus, fn) {
    try {
        await fn();
    } catch (err) {
        if (err && err.response && err.response.status === httpStatus) return err.response.data;
        throw err;
    }
    throw new Error(`expected HTTP ${httpStatus}, the call succeeded`);
}

// ---- catalogues: regions, compute types, database engines ------------------

async function catalogues() {
    const found = {};

    await step('getRegions', async () => {
        const regions = await all(linode.getRegions);
        assert.ok(regions.length > 0, 'at least one region');
        regions.forEach((r) => shape('Region', r));
        found.region = regions.find((r) => r.capabilities.includes('Managed Databases'))
            || regions[0];
        return `${regions.length} regions`;
    });
    await step('getRegion', async () => {
        const r = await linode.getRegion(found.region.id);
        shape('Region', r);
        assert.deepEqual(r, found.region);
        return r.id;
    });
    await step('getRegionAvailabilities', async () => {
        const items = await all(linode.getRegionAvailabilities);
        items.forEach((a) => shape('RegionAvailability', a));
        return `${items.length} entries`;
    });
    await step('getRegionAvailabilities with a filter', async () => {
        const res = await linode.getRegionAvailabilities({}, { available: true });
        assertPage(res);
        res.data.forEach((a) => assert.equal(a.available, true, JSON.stringify(a)));
    });
    await step('getRegionAvailability', async () => {
        const items = await linode.getRegionAvailability(found.region.id);
        assert.ok(Array.isArray(items), 'a bare array');
        items.forEach((a) => {
            shape('RegionAvailability', a);
            assert.equal(a.region, found.region.id);
        });
        return `${items.length} entries`;
    });

    await step('getLinodeTypes (compute types)', async () => {
        const types = await all(linode.getLinodeTypes);
        assert.ok(types.length > 0, 'at least one type');
        types.forEach((t) => shape('LinodeType', t));
        found.computeType = types.find((t) => t.class === 'standard') || types[0];
        return `${types.length} types`;
    });
    await step('getType', async () => {
        const t = await linode.getType(found.computeType.id);
        shape('LinodeType', t);
        assert.deepEqual(t, found.computeType);
        return t.id;
    });

    await step('getDatabaseEngines', async () => {
        const engines = await all(linode.getDatabaseEngines);
        engines.forEach((e) => {
            shape('DatabaseEngine', e);
            assert.equal(e.id, `${e.engine}/${e.version}`);
        });
        for (const engine of ['mysql', 'postgresql']) {
            const versions = engines.filter((e) => e.engine === engine);
            assert.ok(versions.length > 0, `an engine ${engine}`);
            found[engine] = versions[versions.length - 1];
        }
        return `${engines.length} engines`;
    });
    await step('getDatabaseEngines with a filter', async () => {
        const res = await linode.getDatabaseEngines({}, { engine: 'postgresql' });
        assertPage(res);
        assert.ok(res.data.length > 0 && res.data.every((e) => e.engine === 'postgresql'));
    });
    await step('getDatabaseEngine (id with a slash, URL-encoded)', async () => {
        const e = await linode.getDatabaseEngine(found.mysql.id);
        shape('DatabaseEngine', e);
        assert.deepEqual(e, found.mysql);
        return e.id;
    });
    return found;
}

// ---- profile, grants, tokens, SSH keys --------------------------------------

async function profile() {
    let me;
    await step('getProfile', async () => {
        me = await linode.getProfile();
        shape('Profile', me);
        assert.equal(me.restricted, false, 'the suite needs an unrestricted user');
        return me.username;
    });
    await step('updateProfile (timezone) and back', async () => {
        const other = me.timezone === 'UTC' ? 'Europe/Paris' : 'UTC';
        const changed = await linode.updateProfile({ timezone: other });
        shape('Profile', changed);
        assert.equal(changed.timezone, other);
        const back = await linode.updateProfile({ timezone: me.timezone });
        assert.equal(back.timezone, me.timezone);
        assert.equal((await linode.getProfile()).timezone, me.timezone);
    });
    await step('updateProfile (email_notifications) and back', async () => {
        const changed = await linode.updateProfile({
            email_notifications: !me.email_notifications,
        });
        assert.equal(changed.email_notifications, !me.email_notifications);
        const back = await linode.updateProfile({ email_notifications: me.email_notifications });
        assert.equal(back.email_notifications, me.email_notifications);
    });
    await step('updateProfile (lish_auth_method, unchanged)', async () => {
        // The library's name of the contract's shell_auth_method: what the
        // library's users send.
        const current = me.lish_auth_method ?? me.shell_auth_method;
        const res = await linode.updateProfile({ lish_auth_method: current });
        shape('Profile', res);
    });
    await step('getMyGrants (unrestricted: 204, no body)', async () => {
        const grants = await linode.getMyGrants();
        assert.equal(grants, '', `an empty body, got ${JSON.stringify(grants)}`);
    });

    // Personal access tokens
    const label = `smoke-${run}`;
    let created;
    await step('createPersonalAccessToken (limited scopes, expiry)', async () => {
        const expiry = apiTimestamp(new Date(Date.now() + CLOCK_OFFSET_MS + 86400 * 1000));
        created = await linode.createPersonalAccessToken({
            label, scopes: 'domains:read_only account:read_only', expiry,
        });
        suite.cleanup(`token ${created.id}`, async () => {
            useToken(TOKEN);
            await linode.deletePersonalAccessToken(created.id).catch((err) => {
                if (!err.response || err.response.status !== 404) throw err;
            });
        });
        shape('Token', created);
        assert.match(created.token, /^[0-9a-f]{64}$/);
        assert.equal(created.label, label);
        assert.deepEqual(created.scopes.split(/[ ,]+/).sort(), ['account:read_only', 'domains:read_only']);
        assert.equal(created.expiry, expiry);
        assertTimestamp(created.created, 'created');
        return `id ${created.id}`;
    });
    await step('the new token reads, and is refused a write', async () => {
        useToken(created.token);
        try {
            assertPage(await linode.getDomains());
            const body = await statusOf(401, () => linode.createTag({ label: `smoke-${run}-x` }));
            assert.equal(body.errors[0].reason,
                         'Your OAuth token is not authorized to use this endpoint.');
        } finally {
            useToken(TOKEN);
        }
    });
    await step('getPersonalAccessTokens with a filter', async () => {
        const res = await linode.getPersonalAccessTokens({}, { label });
        assertPage(res);
        assert.equal(res.results, 1, JSON.stringify(res));
        shape('Token', res.data[0]);
        assert.equal(res.data[0].id, created.id);
        assert.equal(res.data[0].token, created.token.slice(0, 16));
    });
    await step('getPersonalAccessToken', async () => {
        const t = await linode.getPersonalAccessToken(created.id);
        shape('Token', t);
        assert.equal(t.token, created.token.slice(0, 16));
        assert.equal(t.scopes, created.scopes);
    });
    await step('updatePersonalAccessToken (label)', async () => {
        const t = await linode.updatePersonalAccessToken(created.id, { label: `${label}-renamed` });
        shape('Token', t);
        assert.equal(t.label, `${label}-renamed`);
        assert.equal((await linode.getPersonalAccessToken(created.id)).label, `${label}-renamed`);
    });
    await step('deletePersonalAccessToken, then the token is refused', async () => {
        assert.deepEqual(await linode.deletePersonalAccessToken(created.id), {});
        useToken(created.token);
        try {
            const body = await statusOf(401, () => linode.getProfile());
            assert.equal(body.errors[0].reason, 'Invalid Token');
        } finally {
            useToken(TOKEN);
        }
        await statusOf(404, () => linode.getPersonalAccessToken(created.id));
    });

    // SSH keys
    let key;
    const publicKey = sshPublicKey();
    await step('createSSHKey', async () => {
        key = await linode.createSSHKey({ label: `smoke-${run}`, ssh_key: publicKey });
        suite.cleanup(`SSH key ${key.id}`, () => linode.deleteSSHKey(key.id).catch((err) => {
            if (!err.response || err.response.status !== 404) throw err;
        }));
        shape('SSHKey', key);
        assert.equal(key.ssh_key, publicKey);
        return `id ${key.id}`;
    });
    await step('getSSHKeys with a filter', async () => {
        const res = await linode.getSSHKeys({}, { label: `smoke-${run}` });
        assertPage(res);
        assert.ok(res.data.some((k) => k.id === key.id), JSON.stringify(res));
        res.data.forEach((k) => shape('SSHKey', k));
    });
    await step('getSSHKey, updateSSHKey', async () => {
        shape('SSHKey', await linode.getSSHKey(key.id));
        const k = await linode.updateSSHKey(key.id, { label: `smoke-${run}-renamed` });
        shape('SSHKey', k);
        assert.equal(k.label, `smoke-${run}-renamed`);
    });
    await step('deleteSSHKey', async () => {
        assert.deepEqual(await linode.deleteSSHKey(key.id), {});
        await statusOf(404, () => linode.getSSHKey(key.id));
    });
}

// ---- domains, records, zone file, clone; tags -------------------------------

async function domains() {
    const name = `smoke-${run}.example.com`;
    const tag = `smoke-${run}`;
    let domain;

    await step('createTag', async () => {
        const t = await linode.createTag({ label: tag });
        suite.cleanup(`tag ${tag}`, () => linode.deleteTag(tag).catch((err) => {
            if (!err.response || err.response.status !== 404) throw err;
        }));
        shape('Tag', t);
        assert.deepEqual(t, { label: tag });
    });
    await step('getTags', async () => {
        const tags = await all(linode.getTags);
        tags.forEach((t) => shape('Tag', t));
        assert.ok(tags.some((t) => t.label === tag), 'the new tag is listed');
        return `${tags.length} tags`;
    });

    await step('createDomain (master, tagged)', async () => {
        domain = await linode.createDomain({
            domain: name, type: 'master', soa_email: `hostmaster@${name}`, tags: [tag],
        });
        suite.cleanup(`domain ${name}`, () => deleteIfThere(domain.id));
        shape('Domain', domain);
        assert.equal(domain.domain, name);
        assert.equal(domain.status, 'active');
        assert.deepEqual(domain.tags, [tag]);
        assertTimestamp(domain.updated, 'updated');
        return `id ${domain.id}`;
    });
    await step('getDomains with a filter', async () => {
        const res = await linode.getDomains({}, { domain: name });
        assertPage(res);
        assert.equal(res.results, 1, JSON.stringify(res));
        shape('Domain', res.data[0]);
        assert.equal(res.data[0].id, domain.id);
        const tagged = await linode.getDomains({}, { tags: tag });
        assert.deepEqual(tagged.data.map((d) => d.id), [domain.id]);
    });
    await step('getDomain', async () => {
        const d = await linode.getDomain(domain.id);
        shape('Domain', d);
        assert.equal(d.domain, name);
    });
    await step('updateDomain', async () => {
        const d = await linode.updateDomain(domain.id, {
            description: 'smoke suite', group: 'smoke', ttl_sec: 300, refresh_sec: 3600,
            retry_sec: 3600, expire_sec: 604800, axfr_ips: ['192.0.2.53'],
        });
        shape('Domain', d);
        assert.equal(d.description, 'smoke suite');
        assert.equal(d.group, 'smoke');
        assert.equal(d.ttl_sec, 300);
        assert.equal(d.refresh_sec, 3600);
        assert.equal(d.expire_sec, 604800);
        assert.deepEqual(d.axfr_ips, ['192.0.2.53']);
        domain = d;
    });

    await step('getDomains ordered by X-Filter +order_by', async () => {
        const res = await linode.getDomains({ page_size: 25 },
                                            { '+order_by': 'domain', '+order': 'desc' });
        assertPage(res);
        const names = res.data.map((d) => d.domain);
        assert.deepEqual(names, [...names].sort().reverse());
    });
    await step('a refused record reaches the caller as the API\'s errors', async () => {
        const body = await statusOf(400, () => linode.createDomainRecord(domain.id, {
            type: 'A', name: 'bad', target: 'not-an-address',
        }));
        assert.ok(Array.isArray(body.errors) && body.errors.length > 0, JSON.stringify(body));
        assert.equal(body.errors[0].field, 'target');
        assert.equal(typeof body.errors[0].reason, 'string');
    });

    const wanted = [
        { type: 'A', name: 'www', target: '192.0.2.10', ttl_sec: 300 },
        { type: 'AAAA', name: 'www', target: '2001:db8::10' },
        { type: 'MX', name: '', target: `mail.${name}`, priority: 10 },
        { type: 'TXT', name: '', target: 'v=spf1 -all' },
        { type: 'SRV', service: 'sip', protocol: 'tcp', target: `sip.${name}`,
          priority: 10, weight: 5, port: 5060 },
        { type: 'CNAME', name: 'alias', target: `www.${name}` },
        { type: 'CAA', name: '', tag: 'issue', target: 'letsencrypt.org' },
    ];
    const records = {};
    for (const body of wanted) {
        await step(`createDomainRecord ${body.type}`, async () => {
            const r = await linode.createDomainRecord(domain.id, body);
            shape('DomainRecord', r);
            assert.equal(r.type, body.type);
            assertTimestamp(r.created, 'created');
            records[body.type] = r;
            return `id ${r.id}`;
        });
    }
    await step('record values as stored', async () => {
        assert.equal(records.A.target, '192.0.2.10');
        assert.equal(records.A.name, 'www');
        assert.equal(records.A.ttl_sec, 300);
        assert.equal(records.MX.priority, 10);
        assert.equal(records.SRV.service, 'sip');
        assert.equal(records.SRV.protocol, 'tcp');
        assert.equal(records.SRV.name, '_sip._tcp');
        assert.equal(records.SRV.port, 5060);
        assert.equal(records.SRV.weight, 5);
        assert.equal(records.CAA.tag, 'issue');
        assert.equal(records.CNAME.target, `www.${name}`);
    });
    await step('getDomainRecords', async () => {
        const list = await all((params) => linode.getDomainRecords(domain.id, params));
        list.forEach((r) => shape('DomainRecord', r));
        for (const r of Object.values(records)) {
            assert.deepEqual(list.find((x) => x.id === r.id), r);
        }
        return `${list.length} records`;
    });
    await step('getDomainRecord', async () => {
        assert.deepEqual(await linode.getDomainRecord(domain.id, records.A.id), records.A);
    });
    await step('updateDomainRecord', async () => {
        const r = await linode.updateDomainRecord(domain.id, records.A.id, {
            target: '192.0.2.11', ttl_sec: 3600,
        });
        shape('DomainRecord', r);
        assert.equal(r.target, '192.0.2.11');
        assert.equal(r.ttl_sec, 3600);
        assert.equal(r.type, 'A');
    });
    await step('deleteDomainRecord', async () => {
        assert.deepEqual(await linode.deleteDomainRecord(domain.id, records.TXT.id), {});
        await statusOf(404, () => linode.getDomainRecord(domain.id, records.TXT.id));
        delete records.TXT;
    });
    await step('getDNSZoneFile', async () => {
        const z = await linode.getDNSZoneFile(domain.id);
        shape('ZoneFile', z);
        const text = z.zone_file.join('\n');
        assert.match(text, /\bSOA\b/, 'an SOA line');
        assert.match(text, /192\.0\.2\.11/, 'the updated A record');
        assert.doesNotMatch(text, /v=spf1/, 'not the deleted TXT record');
        return `${z.zone_file.length} lines`;
    });

    const cloneName = `smoke-${run}-clone.example.com`;
    await step('cloneDomain', async () => {
        const c = await linode.cloneDomain(domain.id, { domain: cloneName });
        suite.cleanup(`domain ${cloneName}`, () => deleteIfThere(c.id));
        shape('Domain', c);
        assert.equal(c.domain, cloneName);
        assert.notEqual(c.id, domain.id);
        assert.equal(c.soa_email, domain.soa_email);
        const copied = await all((params) => linode.getDomainRecords(c.id, params));
        assert.deepEqual(copied.map((r) => r.type).sort(),
                         Object.keys(records).sort());
        assert.deepEqual(await linode.deleteDomain(c.id), {});
        return `id ${c.id}`;
    });
    // importZone (POST /domains/import) needs a nameserver that allows the
    // module's transfer: tests/e2e/dns/test_import.py covers it.

    await step('deleteTag (the domain loses it)', async () => {
        await linode.deleteTag(tag);
        assert.deepEqual((await linode.getDomain(domain.id)).tags, []);
    });
    await step('deleteDomain', async () => {
        assert.deepEqual(await linode.deleteDomain(domain.id), {});
        await statusOf(404, () => linode.getDomain(domain.id));
    });

    const slaveName = `smoke-${run}-slave.example.com`;
    await step('createDomain (slave), deleteDomain', async () => {
        const d = await linode.createDomain({
            domain: slaveName, type: 'slave', master_ips: ['192.0.2.53'],
        });
        suite.cleanup(`domain ${slaveName}`, () => deleteIfThere(d.id));
        shape('Domain', d);
        assert.equal(d.type, 'slave');
        assert.deepEqual(d.master_ips, ['192.0.2.53']);
        assert.deepEqual(await linode.deleteDomain(d.id), {});
        return `id ${d.id}`;
    });
}

async function deleteIfThere(domainId) {
    await linode.deleteDomain(domainId).catch((err) => {
        if (!err.response || err.response.status !== 404) throw err;
    });
}

// ---- managed databases --------------------------------------------------------

async function databases(found) {
    const dbs = {};
    const engines = ['mysql', 'postgresql'];
    // The contract: a database's type is a compute type id.
    const typeId = found.computeType.id;

    for (const engine of engines) {
        await step(`createDatabase ${engine}`, async () => {
            const label = `smoke-${run}-${engine === 'mysql' ? 'my' : 'pg'}`;
            const db = await linode.createDatabase(engine, {
                label, engine: found[engine].id, region: found.region.id, type: typeId,
                cluster_size: 1, allow_list: ['203.0.113.0/24'],
            });
            suite.cleanup(`database ${engine} ${db.id}`, () => removeDatabase(engine, db.id));
            shape('Database', db);
            assert.equal(db.label, label);
            assert.equal(db.engine, engine);
            assert.equal(db.status, 'provisioning');
            assert.equal(db.hosts === null || db.hosts.primary === null, true,
                         'no hosts while provisioning');
            assert.equal(db.port, engine === 'mysql' ? 3306 : 5432);
            dbs[engine] = db;
            return `id ${db.id}`;
        });
    }
    await step('getDatabases with a filter', async () => {
        const res = await linode.getDatabases({}, { label: { '+contains': `smoke-${run}-` } });
        assertPage(res);
        assert.deepEqual(res.data.map((d) => d.id).sort((a, b) => a - b),
                         engines.map((e) => dbs[e].id).sort((a, b) => a - b));
        res.data.forEach((d) => {
            shape('DatabaseInstance', d);
            assert.equal(d.instance_uri, `/v4/databases/${d.engine}/instances/${d.id}`);
        });
    });
    for (const engine of engines) {
        await step(`getEngineDatabases ${engine} with a filter`, async () => {
            const res = await linode.getEngineDatabases(engine, {}, { label: dbs[engine].label });
            assertPage(res);
            assert.equal(res.results, 1, JSON.stringify(res));
            shape('Database', res.data[0]);
        });
        await step(`getEngineDatabase ${engine}`, async () => {
            const db = await linode.getEngineDatabase(engine, dbs[engine].id);
            shape('Database', db);
            assert.equal(db.id, dbs[engine].id);
        });
        await step(`updateDatabase ${engine} refused while provisioning`, async () => {
            const body = await statusOf(400, () => linode.updateDatabase(engine, dbs[engine].id,
                                                                         { label: 'smoke-x' }));
            assert.match(body.errors[0].reason, /provisioning/);
        });
    }

    await step('databases become active', () => suite.waitFor(
        'databases provisioning (acctapi-admin clock advance 40m)',
        () => allActive(engines, dbs), WAIT_SECONDS));

    for (const engine of engines) {
        const id = dbs[engine]?.id;
        await step(`getEngineDatabase ${engine} (active)`, async () => {
            const db = await linode.getEngineDatabase(engine, id);
            shape('Database', db);
            assert.equal(db.status, 'active');
            shape('DatabaseHosts', db.hosts);
        });
        await step(`getDatabaseCredentials ${engine}`, async () => {
            const c = await linode.getDatabaseCredentials(engine, id);
            shape('DatabaseCredentials', c);
            assert.ok(c.password.length >= 16, 'a password of 16+ characters');
        });
        await step(`getSSLFields ${engine}`, async () => {
            const ssl = await linode.getSSLFields(engine, id);
            shape('SSLFields', ssl);
            const pem = Buffer.from(ssl.ca_certificate, 'base64').toString('utf8');
            assert.match(pem, /^-----BEGIN CERTIFICATE-----/);
        });
        await step(`getDatabaseBackups ${engine}`, async () => {
            const res = await linode.getDatabaseBackups(engine, id);
            assertPage(res);
            res.data.forEach((b) => shape('DatabaseBackup', b));
            if (res.data.length) {
                const b = await linode.getDatabaseBackup(engine, id, res.data[0].id);
                assert.deepEqual(b, res.data[0]);
            }
            return `${res.results} backups`;
        });
        await step(`updateDatabase ${engine}`, async () => {
            const label = `${dbs[engine].label}-2`;
            const updates = {
                frequency: 'weekly', duration: 3, hour_of_day: 2, day_of_week: 1,
                week_of_month: null,
            };
            const db = await linode.updateDatabase(engine, id, {
                label, allow_list: ['203.0.113.0/24', '198.51.100.7'], updates,
            });
            shape('Database', db);
            assert.equal(db.label, label);
            assert.deepEqual(db.allow_list, ['203.0.113.0/24', '198.51.100.7']);
            // Today's API adds the maintenance it has planned (none yet).
            assert.deepEqual(db.updates, { ...updates, pending: [] });
            assert.equal(db.status, 'updating');
            dbs[engine].label = label;
        });
    }
    await step('databases active after the update', () => suite.waitFor(
        'databases updating (acctapi-admin clock advance 40m)',
        () => allActive(engines, dbs), WAIT_SECONDS));
    for (const engine of engines) {
        await step(`deleteDatabase ${engine}`, async () => {
            assert.deepEqual(await linode.deleteDatabase(engine, dbs[engine].id), {});
            await statusOf(404, () => linode.getEngineDatabase(engine, dbs[engine].id));
        });
    }
}

async function allActive(engines, dbs) {
    for (const engine of engines) {
        const db = await linode.getEngineDatabase(engine, dbs[engine].id);
        if (db.status !== 'active') return false;
    }
    return true;
}

/* Clean-up: a database in a transient status must settle before deletion. */
async function removeDatabase(engine, id) {
    let db;
    try {
        db = await linode.getEngineDatabase(engine, id);
    } catch (err) {
        if (err.response && err.response.status === 404) return;
        throw err;
    }
    if (!['active', 'failed', 'degraded'].includes(db.status)) {
        await suite.waitFor(`database ${id} ${db.status} before its deletion`
                            + ' (acctapi-admin clock advance 40m)',
                            async () => (await linode.getEngineDatabase(engine, id)).status
                                        !== db.status, WAIT_SECONDS);
    }
    await linode.deleteDatabase(engine, id);
}

// Not called: getDatabaseTypes/getDatabaseType (GET /databases/types...),
// which came to the public API after the contract's release; the contract
// prices database nodes with the compute types, which the steps above use.

// ---- main ---------------------------------------------------------------------

pointClientAt(BASE_URL);
useToken(TOKEN);
console.log(`client @linode/api-v4 against ${BASE_URL} (run ${run})`);
try {
    const found = await catalogues();
    await profile();
    if (found.region && found.computeType && found.mysql && found.postgresql) {
        await databases(found);
    } else {
        await step('databases', () => {
            throw new Error('the catalogue steps found no region, type or engine to use');
        });
    }
    await domains();
} catch (err) {
    if (!Suite.isAbort(err)) {
        suite.failures++;
        console.log(`FAIL unexpected: ${err && err.stack ? err.stack : err}`);
    }
} finally {
    await suite.runCleanups();
}
for (const note of [...suite.notes].sort()) {
    console.log(`note ${note}`);
}
console.log(`${suite.passed} steps passed, ${suite.failures} failed`);
process.exit(suite.failures ? 1 : 0);
