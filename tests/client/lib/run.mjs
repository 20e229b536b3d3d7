// The smoke suite's mechanics: pointing the library at the module, steps,
// clean-up, waiting for a status.  Nothing here asserts API behaviour.

import { baseRequest, setToken } from '@linode/api-v4';

// The root every function of the library builds its URL on (lib/constants:
// API_ROOT; BETA_API_ROOT is the same string plus "beta").  Replacing this
// prefix is how Linode's own Cloud Manager tests point the library at
// another API (packages/manager/cypress/support/util/api.ts).
const LIBRARY_ROOT = 'https://api.linode.com/v4';

let tokenInterceptor = null;
let lastExchange = null;

/*
 * Points the library at `baseUrl` (".../v4"): the library's README way of
 * changing requests, an interceptor on its exported axios instance.
 */
export function pointClientAt(baseUrl) {
    const root = baseUrl.replace(/\/+$/, '');
    baseRequest.interceptors.request.use((config) => {
        if (config.url && config.url.startsWith(LIBRARY_ROOT)) {
            return { ...config, url: root + config.url.slice(LIBRARY_ROOT.length) };
        }
        return config;
    });
    // Remembered for the failure report: the last request and its answer.
    baseRequest.interceptors.response.use(
        (response) => {
            lastExchange = exchange(response.config, response);
            return response;
        },
        (error) => {
            lastExchange = exchange(error.config, error.response);
            return Promise.reject(error);
        });
}

/* Authenticates the following requests with `token` (setToken, swapped). */
export function useToken(token) {
    if (tokenInterceptor !== null) {
        baseRequest.interceptors.request.eject(tokenInterceptor);
    }
    tokenInterceptor = setToken(token);
}

function exchange(config, response) {
    return {
        request: config ? `${(config.method || 'get').toUpperCase()} ${config.url}` : '?',
        sent: config && config.data !== undefined ? config.data : undefined,
        status: response ? response.status : 'no response',
        body: response ? response.data : undefined,
    };
}

function show(v) {
    if (v === undefined) return '(none)';
    if (typeof v === 'string') return v === '' ? '(empty)' : v;
    return JSON.stringify(v);
}

/* The failure report of `err`: what failed, the request and the answer. */
export function describe(err) {
    const lines = [];
    if (Array.isArray(err)) {
        // The library rejects with APIError[] when its own validation of
        // the request body fails, before anything is sent.
        lines.push('the library refused the request body: ' + JSON.stringify(err));
        return lines.join('\n');
    }
    if (err && err.isAxiosError) {
        const ex = exchange(err.config, err.response);
        lines.push(`HTTP error: ${ex.request} -> ${ex.status}`);
        if (ex.sent !== undefined) lines.push(`  sent: ${show(ex.sent)}`);
        lines.push(`  body: ${show(ex.body)}`);
        if (!err.response) lines.push(`  ${err.code || ''} ${err.message}`);
        return lines.join('\n');
    }
    lines.push(String(err && err.stack ? err.stack.split('\n').slice(0, 3).join('\n') : err));
    if (err && err.body !== undefined) lines.push(`  checked: ${show(err.body)}`);
    if (lastExchange) {
        lines.push(`  last request: ${lastExchange.request} -> ${lastExchange.status}`);
        if (lastExchange.sent !== undefined) lines.push(`  sent: ${show(lastExchange.sent)}`);
        lines.push(`  body: ${show(lastExchange.body)}`);
    }
    return lines.join('\n');
}

class Failed extends Error {}

export class Suite {
    constructor({ keepGoing = false } = {}) {
        this.keepGoing = keepGoing;
        this.failures = 0;
        this.passed = 0;
        this.cleanups = [];
        this.notes = new Set();
    }

    /*
     * Runs one step; prints "ok" and its detail, or "FAIL" with the report.
     * Returns the step's value, or throws to end the suite (unless keepGoing:
     * then undefined, and later steps that need the value fail too).
     */
    async step(name, fn) {
        try {
            const detail = await fn();
            this.passed++;
            console.log(`ok   ${name}${typeof detail === 'string' && detail ? ` (${detail})` : ''}`);
            return detail;
        } catch (err) {
            this.failures++;
            console.log(`FAIL ${name}`);
            console.log(describe(err).replace(/^/gm, '     '));
            if (!this.keepGoing) throw new Failed(name);
            return undefined;
        }
    }

    /* Registers clean-up work, run last to first whatever happens. */
    cleanup(name, fn) {
        this.cleanups.push({ name, fn });
    }

    async runCleanups() {
        while (this.cleanups.length) {
            const { name, fn } = this.cleanups.pop();
            try {
                await fn();
                console.log(`ok   cleanup: ${name}`);
            } catch (err) {
                this.failures++;
                console.log(`FAIL cleanup: ${name}`);
                console.log(describe(err).replace(/^/gm, '     '));
            }
        }
    }

    /*
     * Polls `probe` until it returns true.  The "WAIT" line tells whoever
     * runs the suite that time must pass: the e2e harness advances the
     * module's test clock when it reads it (AcctapiTestClock On); against a
     * module with real time it simply takes the provisioning time.
     */
    async waitFor(what, probe, seconds) {
        console.log(`WAIT ${what}`);
        const deadline = Date.now() + seconds * 1000;
        for (;;) {
            if (await probe()) return;
            if (Date.now() >= deadline) {
                throw new Error(`still waiting after ${seconds}s: ${what}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 500));
        }
    }

    static isAbort(err) {
        return err instanceof Failed;
    }
}
