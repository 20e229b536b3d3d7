// The library over HTTPS with a private CA: Node.js takes extra trusted
// certificates from NODE_EXTRA_CA_CERTS (a PEM file), read at start-up, and
// axios, under the library, uses them.  Nothing in the library changes.
//
//   NODE_EXTRA_CA_CERTS=/path/ca.pem ACCTAPI_URL=https://host/v4 \
//   ACCTAPI_TOKEN=<token> node tls.mjs
//
// Prints "ok <username>" and exits 0, or prints the error and exits 1.

import * as linode from '@linode/api-v4';

import { describe, pointClientAt, useToken } from './lib/run.mjs';

pointClientAt(process.env.ACCTAPI_URL);
useToken(process.env.ACCTAPI_TOKEN);
try {
    const profile = await linode.getProfile();
    const domains = await linode.getDomains();
    if (!Array.isArray(domains.data)) throw new Error('getDomains: no data array');
    console.log(`ok ${profile.username}`);
} catch (err) {
    console.log(describe(err));
    process.exit(1);
}
