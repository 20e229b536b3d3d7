// The values the public console's own validation accepts for domains and
// records, as requests to send: tests/e2e/dns/test_validation_schemas.py
// sends each and requires the module to accept it (docs/conventions.md, "Today's
// clients": never stricter than the public API).
//
// For every field of @linode/validation's createDomainSchema,
// updateDomainSchema, createRecordSchema and updateRecordSchema, samples
// are generated from what the schema says of the field (schema.describe():
// its enum members, length and number bounds, pattern, e-mail test,
// nullability), shaped as the field's values are (a host name, an address,
// a tag label) so that a sample tests the bound, not the shape.  Each
// sample goes into an otherwise valid request and is kept only if the
// schema itself accepts that request (strict: no casting).  A sample the
// schema accepts but the public API's published specification refuses, or
// DNS cannot carry, is listed as excluded, with the reason.
//
// A field the schemas gain that this script has no shape for is an error:
// the output then says so and the test fails until it is looked at.
//
// Output (stdout): {"package", "cases": [...], "excluded": [...],
// "dropped": [...] (samples the schema itself refuses), "errors": [...]}.  A case: {"schema", "field", "why",
// "domain": body of the domain to create first (or null: the request makes
// it), "record": body of the record to create first (or null), "method",
// "path": "domains" | "domain" | "records" | "record", "body"}.  Domain
// names hold NONCE000, which the test replaces with 8 hex digits unique in its run.

import { readFileSync } from 'node:fs';
import * as validation from '@linode/validation';

const NONCE = 'NONCE000';
const version = JSON.parse(readFileSync(new URL(
  './node_modules/@linode/validation/package.json', import.meta.url))).version;

// ---- shapes ---------------------------------------------------------------

// A host name of exactly `len` characters: labels of at most 63, joined by
// dots (never a label of 0); `first` starts it ('_' for an underscored one).
function hostOfLength(len, first = 'h') {
  const labels = [];
  let left = len;
  while (left > 0) {
    // leave ".x" at least after a label that is not the last
    const n = left <= 63 ? left : Math.min(63, left - 2);
    labels.push((labels.length ? 'h' : first).padEnd(n, 'a'));
    left -= n + 1;
  }
  return labels.join('.');
}

const domainName = (stem = '') => `${stem}${NONCE}.example.com`;

// The published specification's domain pattern (anchored, labels of 1..63)
// and its prose: labels conform to RFC 1035, so no hyphen first or last.
const SPEC_DOMAIN = /^(\*\.)?([a-zA-Z0-9-_]{1,63}\.)+([a-zA-Z]{2,3}\.)?([a-zA-Z]{2,16}|xn--[a-zA-Z0-9]+)$/;

function domainRefusal(name) {
  if (name.length > 253) {
    return 'DNS: a name has at most 253 characters';
  }
  if (name.split('.').some((l) => l.length > 63)) {
    return 'DNS: a label has at most 63 characters';
  }
  // DNS names compare without case: XN-- is xn--.
  if (!SPEC_DOMAIN.test(name.toLowerCase())) {
    return "the published spec's domain pattern refuses it (the console's "
      + 'pattern is not anchored)';
  }
  if (name.startsWith('*.')) {
    return "DNS: a zone's apex NS cannot be at a wildcard name (BIND refuses "
      + 'the zone)';
  }
  if (name.split('.').some((l) => l.startsWith('-') || l.endsWith('-'))) {
    return "the published spec: labels conform to RFC 1035 (no hyphen first "
      + 'or last)';
  }
  return null;
}

// Candidate domain names, for the pattern of `domain`.
const DOMAIN_CANDIDATES = [
  domainName(),
  `${NONCE}.co.uk`,                              // ([a-zA-Z]{2,3}\.)? part
  `${NONCE}.ab`,                                 // a 2-letter top label
  `${NONCE}.abcdefghijklmnop`,                   // a 16-letter top label
  `${NONCE}.xn--p1ai`,
  `${NONCE}.XN--P1AI`,
  `${NONCE}.EXAMPLE.COM`,
  `_dmarc.${NONCE}.example`,                     // underscores
  `a_b-${NONCE}.example`,
  `1732600000000000000-${NONCE}-example.com`,    // linode_api4's names
  `example.bc-${NONCE}.com`,                     // linode-cli's names
  `tf-test--${NONCE}.example`,                   // the Terraform provider's
  `${NONCE}${'a'.repeat(55)}.example.com`,       // a label of 63
  `${NONCE}.${hostOfLength(253 - NONCE.length - 5)}.com`,  // 253 in all
  `${NONCE}${'a'.repeat(56)}.example.com`,       // a label of 64
  `${NONCE}.${hostOfLength(254 - NONCE.length - 5)}.com`,  // 254
  `*.${NONCE}.example.com`,
  `-${NONCE}.example.com`,
  `${NONCE}-.example.com`,
  `x ${NONCE}.example.com`,
];

const EMAIL_CANDIDATES = [
  'hostmaster@example.com',
  'a@b',                                          // a host of one label
  'A.B@EXAMPLE.COM',
  '.dns..admin.@example.com',                     // dots anywhere
  "!#$%&'*+/=?^_`{|}~-@example.com",
  'pathiel-test123@linode.com',
  `${'l'.repeat(63)}@example.com`,
  `x@${'h'.repeat(63)}.example`,
  `${'l'.repeat(64)}@example.com`,
  ` hostmaster@example.com `,
];

function emailRefusal(email) {
  const at = email.indexOf('@');
  if (at > 63) {
    return "DNS: the local part is the SOA RNAME's first label, at most 63 "
      + 'octets';
  }
  return null;
}

// ---- request bases ----------------------------------------------------------

const MASTER = () => ({ domain: domainName(), type: 'master',
                        soa_email: 'hostmaster@example.com' });
const SLAVE = () => ({ domain: domainName(), type: 'slave',
                       master_ips: ['192.0.2.53'] });

const RECORD_BASE = {
  A: { type: 'A', name: 'www', target: '192.0.2.1' },
  AAAA: { type: 'AAAA', name: 'www', target: '2001:db8::1' },
  NS: { type: 'NS', name: 'sub', target: 'ns1.example.net' },
  MX: { type: 'MX', name: '', target: 'mail.example.net', priority: 10 },
  CNAME: { type: 'CNAME', name: 'alias', target: 'example.net' },
  TXT: { type: 'TXT', name: 'txt', target: 'v=spf1 -all' },
  SRV: { type: 'SRV', service: 'sip', protocol: 'tcp', target: 'sip',
         priority: 10, weight: 5, port: 5060 },
  PTR: { type: 'PTR', name: '10', target: 'host.example.net' },
  CAA: { type: 'CAA', name: '', tag: 'issue', target: 'letsencrypt.org' },
};
const TYPES = Object.keys(RECORD_BASE);

// What the published spec says a field of a record type is for.
const ONLY_FOR = {
  priority: ['MX', 'SRV'],
  weight: ['SRV'],
  port: ['SRV'],
  service: ['SRV'],
  protocol: ['SRV'],
  tag: ['CAA'],
};

// ---- samples per field --------------------------------------------------------

const tests = (d) => Object.fromEntries(d.tests.map((t) => [t.name, t.params || {}]));
const out = { package: `@linode/validation@${version}`, cases: [], excluded: [],
              dropped: [], errors: [] };

// Samples of a number field: its bounds, else the values of its role.
function numberSamples(field, d) {
  const t = tests(d);
  if ('min' in t || 'max' in t) {
    return [t.min?.min, t.max?.max].filter((v) => v !== undefined)
      .map((v) => [v, `bound ${v}`]);
  }
  if (/_sec$/.test(field)) {
    return [-86400, -1, 0, 1, 299, 300, 2419200, 2419201, 2147483647]
      .map((v) => [v, `${v} seconds (rounded up; 0 or less is the default)`]);
  }
  if (field === 'weight' || field === 'port') {
    return [[0, '0'], [65535, '65535'], [-1, '-1'], [65536, '65536']];
  }
  if (field === 'domainId') {
    return [[1, 'the path id']];
  }
  return null;
}

function numberRefusal(field, value) {
  if ((field === 'weight' || field === 'port') && (value < 0 || value > 65535)) {
    return 'DNS: SRV weight and port are 16-bit';
  }
  return null;
}

// Samples of a string field of a domain.
function domainStringSamples(field, d) {
  const t = tests(d);
  if (field === 'domain') {
    return DOMAIN_CANDIDATES.map((v) => [v, `pattern: ${v.length} characters`]);
  }
  if (field === 'soa_email') {
    return EMAIL_CANDIDATES.map((v) => [v, 'e-mail']);
  }
  if (field === 'description' || field === 'group') {
    const lens = [t.min?.min ?? 1, t.max?.max].filter((v) => v !== undefined);
    return lens.flatMap((n) => [[('d'.repeat(n)), `length ${n}`],
                                [('é'.repeat(n)), `length ${n}, not ASCII`]]);
  }
  return null;
}

// Samples of an array field of a domain.
function domainArraySamples(field) {
  if (field === 'tags') {
    return [[[], 'no tags'], [['abc'], 'a tag of 3'], [['t'.repeat(50)], 'a tag of 50'],
            [['test-tag', 'tf_test'], "the clients' tags"], [['*'], 'a tag of 1'],
            [['ab'], 'a tag of 2'], [['t'.repeat(51)], 'a tag of 51']];
  }
  if (field === 'master_ips' || field === 'axfr_ips') {
    return [[[], 'none'], [['192.0.2.1'], 'IPv4'], [['2001:db8::1'], 'IPv6'],
            [['12.34.56.78'], "the Terraform provider's"],
            [['192.0.2.1', '2001:db8::1'], 'both']];
  }
  return null;
}

function tagRefusal(tags) {
  if (tags.some((t) => t.length < 3 || t.length > 50)) {
    return 'tag labels are 3-50 characters (the contract; linode-cli\'s '
      + 'test_domain_tags expects the tag "*" to be refused)';
  }
  return null;
}

// ---- validation -------------------------------------------------------------

async function accepts(schema, body) {
  try {
    await schema.validate(body, { strict: true, abortEarly: false });
    return true;
  } catch (e) {
    return false;
  }
}

async function consider(schema, name, field, value, why, req, refusal) {
  if (!(await accepts(schema, req.body))) {
    out.dropped.push({ schema: name, field, value, why });
    return;
  }
  const entry = { schema: name, field, value, why, ...req };
  if (refusal) {
    out.excluded.push({ ...entry, reason: refusal });
  }
  else {
    out.cases.push(entry);
  }
}

// ---- domains ---------------------------------------------------------------------

async function domainSchema(name, create) {
  const schema = validation[name];
  const fields = schema.describe({ value: MASTER() }).fields;
  for (const [field, d] of Object.entries(fields)) {
    let samples;
    if (d.oneOf.length) {
      samples = d.oneOf.map((v) => [v, `enum member ${v}`]);
    }
    else if (d.type === 'number') {
      samples = numberSamples(field, d);
    }
    else if (d.type === 'string') {
      samples = domainStringSamples(field, d);
    }
    else if (d.type === 'array') {
      samples = domainArraySamples(field);
    }
    if (!samples) {
      out.errors.push(`${name}.${field}: no sample shape for a ${d.type}`);
      continue;
    }
    for (const [value, why] of samples) {
      // a slave for what slaves have, else a master
      const base = (field === 'type' && value === 'slave')
        || field === 'master_ips' ? SLAVE() : MASTER();
      let refusal = null;
      if (field === 'domain') {
        refusal = domainRefusal(value);
      }
      else if (field === 'soa_email') {
        refusal = emailRefusal(value);
      }
      else if (field === 'status' && !['active', 'disabled'].includes(value)) {
        refusal = "the published spec's request enum is active, disabled: "
          + `${value} is a state the public API sets itself`;
      }
      else if (field === 'tags') {
        refusal = tagRefusal(value);
      }
      else if (d.type === 'number') {
        refusal = numberRefusal(field, value);
      }
      if (field === 'master_ips' && value.length === 0) {
        continue;   // a slave without masters: refused by both
      }
      const body = create ? { ...base, [field]: value } : { [field]: value };
      await consider(schema, name, field, value, why, {
        domain: create ? null : base,
        record: null,
        method: create ? 'POST' : 'PUT',
        path: create ? 'domains' : 'domain',
        body,
      }, refusal);
    }
  }
}

// ---- records ---------------------------------------------------------------------

// Samples of a record's string field for record type `type`.
function recordStringSamples(field, d, type) {
  const t = tests(d);
  if (field === 'name') {
    const max = t.max?.max ?? 100;
    const lens = [0, t.min?.min ?? 1, 63, 64, max];
    return lens.flatMap((n) => n === 0 ? [['', 'length 0: the domain itself']]
      : [[hostOfLength(n), `length ${n}`],
         [hostOfLength(n, '_'), `length ${n}, underscored`]]);
  }
  if (field === 'target') {
    return {
      A: [['192.0.2.1', 'IPv4'], ['0.0.0.0', "the Terraform provider's"],
          ['[remote_addr]', 'the caller']],
      AAAA: [['2001:db8::1', 'IPv6'], ['2400:3f00::22', "the Terraform provider's"],
             ['::ffff:192.0.2.1', 'IPv4-mapped']],
      TXT: [['x', 'length 1'], ['t'.repeat(255), 'one string'],
            ['t'.repeat(256), 'two strings'], ['t'.repeat(65254), 'the most DNS carries'],
            ['t'.repeat(65535), 'the published maximum']],
      CAA: [['letsencrypt.org', 'issue'], ['letsencrypt.org; validationmethods=dns-01',
                                            'issue with parameters']],
    }[type] ?? [[hostOfLength(253), 'a host name of 253'],
                [`${hostOfLength(252)}.`, 'a host name of 253 and a dot'],
                ['target_1.example.net', 'underscored'],
                ...(type === 'SRV' ? [['rc_test', "linode_api4's bare target"]] : [])];
  }
  if (field === 'service') {
    return [['sip', 'a service'], ['_sip', 'with its underscore'],
            ['service_test', "linode_api4's"], ['s'.repeat(62), '62: a label of 63 named'],
            ['s'.repeat(63), '63: a label of 64 named'], [null, 'null']];
  }
  if (field === 'protocol') {
    return [['tcp', 'tcp'], ['_udp', 'with its underscore'], ['my_proto', 'underscored'],
            [`_${'p'.repeat(62)}`, '62: a label of 63 named'],
            ['p'.repeat(63), '63: a label of 64 named'], [null, 'null: the default, tcp']];
  }
  if (field === 'tag') {
    return [['issue', 'issue'], ['issuewild', 'issuewild'], ['iodef', 'iodef'],
            ['contactemail', 'another CAA property']];
  }
  return null;
}

function recordRefusal(field, value, type, create) {
  if (field === 'name' && type === 'CNAME' && value === '') {
    return 'the published spec: a CNAME name is required';
  }
  if (field === 'name' && type === 'MX' && value.includes('_')) {
    return "the published spec: an MX name's labels are letters, digits and hyphens";
  }
  if (field === 'name' && value.length > 63 && value.length - value.lastIndexOf('.') > 64) {
    return 'DNS: a label is at most 63 octets';
  }
  if (field === 'target' && type === 'TXT' && value.length > 65254) {
    return 'DNS: a TXT record of 255-byte strings holds at most 65254 bytes';
  }
  if (field === 'target' && type === 'MX' && value.includes('_')) {
    return "the published spec: an MX target's labels are letters, digits and hyphens";
  }
  if (field === 'target' && type === 'MX' && value.replace(/\.$/, '').length >= 254) {
    return 'the published spec: an MX target has fewer than 254 characters';
  }
  if ((field === 'service' || field === 'protocol') && value !== null
      && value.replace(/^_/, '').length > 62) {
    return 'DNS: named with its underscore, a label of more than 63 octets';
  }
  if (field === 'service' && value === null && type === 'SRV' && create) {
    return 'the published spec: service is required for SRV records';
  }
  if (field === 'tag' && type === 'CAA' && !['issue', 'issuewild', 'iodef'].includes(value)) {
    return "the published spec's tag enum: issue, issuewild, iodef";
  }
  if ((field === 'weight' || field === 'port') && (value < 0 || value > 65535)) {
    return 'DNS: SRV weight and port are 16-bit';
  }
  return null;
}

async function recordSchema(name, create) {
  const schema = validation[name];
  const fields = schema.describe().fields;
  for (const [field, d] of Object.entries(fields)) {
    if (field === 'type') {
      if (!create || !d.oneOf.length) {
        out.errors.push(`${name}.type: expected an enum`);
        continue;
      }
      for (const type of d.oneOf) {
        const body = RECORD_BASE[type];
        if (!body) {
          out.errors.push(`${name}.type: no request of type ${type}`);
          continue;
        }
        await consider(schema, name, field, type, `enum member ${type}`,
                       { domain: MASTER(), record: null, method: 'POST',
                         path: 'records', body }, null);
      }
      continue;
    }
    const owners = ONLY_FOR[field];
    if (owners) {
      // One entry for what the other types cannot have; their unused
      // values (0, null: what every view shows) are still sent.
      out.excluded.push({ schema: name, field, value: null, why: 'any value but 0 or null',
                          types: TYPES.filter((t) => !owners.includes(t)),
                          reason: `the published spec: ${field} is only valid for `
                            + `${owners.join(' and ')} records` });
    }
    for (const type of TYPES) {
      let samples;
      if (d.type === 'number') {
        samples = numberSamples(field, d);
      }
      else if (d.type === 'string') {
        samples = recordStringSamples(field, d, type);
      }
      if (!samples) {
        out.errors.push(`${name}.${field}: no sample shape for a ${d.type}`);
        break;
      }
      if (d.nullable && !samples.some(([v]) => v === null)) {
        samples = [...samples, [null, 'null']];
      }
      if (owners && !owners.includes(type)) {
        samples = d.type === 'number' ? [[0, 'the unused value']]
          : d.nullable ? [[null, 'the unused value']] : [];
      }
      for (const [value, why] of samples) {
        const base = RECORD_BASE[type];
        const refusal = recordRefusal(field, value, type, create);
        const body = create ? { ...base, [field]: value } : { [field]: value };
        await consider(schema, name, field, value, `${type}: ${why}`, {
          domain: MASTER(),
          record: create ? null : base,
          method: create ? 'POST' : 'PUT',
          path: create ? 'records' : 'record',
          body,
        }, refusal);
      }
    }
  }
}

await domainSchema('createDomainSchema', true);
await domainSchema('updateDomainSchema', false);
await recordSchema('createRecordSchema', true);
await recordSchema('updateRecordSchema', false);
process.stdout.write(JSON.stringify(out));
