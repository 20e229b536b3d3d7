// The response interfaces @linode/api-v4 0.158.0 declares (lib/**/types.d.ts),
// transcribed field by field, and a checker that holds a response to them.
//
// Notation: a field's spec is a type expression ("string", "number",
// "boolean", "null|string", "string[]", "object", "enum:a|b"), a nested spec
// (a plain object), or { items: spec } for an array of objects.  A name
// ending in "?" is optional in the .d.ts (checked only when present).
//
// The contract (the Account Services API, release 4.174.0) is a subset of the
// public API the library follows.  Two kinds of declared fields are therefore
// not required here, and each is named below with its reason, never silently:
//   RENAMED: the contract writes the field with a neutral word (see its
//            introduction); the module serves the contract's name.
//   BEYOND:  the field came to the public API after the contract's release;
//            the contract has no such field.
// The suite prints every such field it meets (a "note" line), so a client
// author sees exactly what the module leaves out.

export const INTERFACES = {
    // domains/types.d.ts: Domain (the library declares no `created`)
    Domain: {
        axfr_ips: 'string[]',
        description: 'string',
        domain: 'string',
        expire_sec: 'number',
        group: 'string',
        id: 'number',
        master_ips: 'string[]',
        refresh_sec: 'number',
        retry_sec: 'number',
        // docs/conventions.md: unset strings are null unless stated, and a slave
        // domain has no SOA e-mail; the library's own code never reads it
        // there, and JSON decoders of the Go/Python clients take null.
        soa_email: 'null|string',
        status: 'enum:active|disabled|edit_mode|has_errors',
        tags: 'string[]',
        ttl_sec: 'number',
        type: 'enum:master|slave',
        updated: 'string',
    },
    // domains/types.d.ts: DomainRecord
    DomainRecord: {
        created: 'string',
        id: 'number',
        name: 'string',
        port: 'number',
        priority: 'number',
        protocol: 'null|string',
        service: 'null|string',
        tag: 'null|string',
        target: 'string',
        ttl_sec: 'number',
        type: 'enum:A|AAAA|CAA|CNAME|MX|NS|PTR|SRV|TXT',
        updated: 'string',
        weight: 'number',
    },
    // domains/types.d.ts: ZoneFile
    ZoneFile: {
        zone_file: 'string[]',
    },
    // profile/types.d.ts: Profile, Referrals
    Profile: {
        authentication_type: 'enum:github|google|password',
        authorized_keys: 'null|string[]',
        email: 'string',
        email_notifications: 'boolean',
        ip_whitelist_enabled: 'boolean',
        lish_auth_method: 'enum:disabled|keys_only|password_keys',
        referrals: {
            code: 'string',
            completed: 'number',
            credit: 'number',
            pending: 'number',
            total: 'number',
            url: 'string',
        },
        restricted: 'boolean',
        timezone: 'string',
        two_factor_auth: 'boolean',
        uid: 'number',
        user_type: 'enum:child|default|delegate|parent|proxy',
        username: 'string',
        verified_phone_number: 'null|string',
    },
    // profile/types.d.ts: Token
    Token: {
        created: 'string',
        expiry: 'null|string',
        id: 'number',
        label: 'string',
        scopes: 'string',
        'thumbnail_url?': 'null|string',
        'token?': 'string',
        'website?': 'string',
    },
    // profile/types.d.ts: SSHKey
    SSHKey: {
        created: 'string',
        id: 'number',
        label: 'string',
        ssh_key: 'string',
    },
    // account/types.d.ts: Grant (items of every entity list of Grants)
    Grant: {
        id: 'number',
        label: 'string',
        permissions: 'null|enum:read_only|read_write',
    },
    // tags/types.d.ts: Tag
    Tag: {
        label: 'string',
    },
    // regions/types.d.ts: Region, DNSResolvers
    Region: {
        capabilities: 'string[]',
        country: 'string',
        id: 'string',
        label: 'string',
        'monitors?': 'object',
        placement_group_limits: {
            maximum_linodes_per_pg: 'number',
            maximum_pgs_per_customer: 'null|number',
        },
        resolvers: { ipv4: 'string', ipv6: 'string' },
        site_type: 'enum:core|distributed',
        status: 'enum:ok|outage',
    },
    // regions/types.d.ts: RegionAvailability
    RegionAvailability: {
        available: 'boolean',
        plan: 'string',
        region: 'string',
    },
    // linodes/types.d.ts: LinodeType (BaseType, PriceObject, RegionPriceObject)
    LinodeType: {
        accelerated_devices: 'number',
        addons: {
            backups: {
                price: { hourly: 'null|number', monthly: 'null|number' },
                region_prices: {
                    items: { id: 'string', hourly: 'null|number', monthly: 'null|number' },
                },
            },
        },
        class: 'enum:accelerated|dedicated|gpu|highmem|metal|nanode|premium|prodedicated|standard',
        disk: 'number',
        gpus: 'number',
        id: 'string',
        label: 'string',
        memory: 'number',
        network_out: 'number',
        price: { hourly: 'null|number', monthly: 'null|number' },
        region_prices: {
            items: { id: 'string', hourly: 'null|number', monthly: 'null|number' },
        },
        successor: 'null|string',
        transfer: 'number',
        vcpus: 'number',
    },
    // databases/types.d.ts: DatabaseEngine
    DatabaseEngine: {
        'deprecated?': 'boolean',
        engine: 'enum:mysql|postgresql',
        id: 'string',
        version: 'string',
    },
    // databases/types.d.ts: DatabaseType (BaseType + class, engines)
    DatabaseType: {
        class: 'enum:dedicated|nanode|premium|standard',
        disk: 'number',
        engines: 'object',
        id: 'string',
        label: 'string',
        memory: 'number',
        vcpus: 'number',
    },
    // databases/types.d.ts: Database = BaseDatabase & Partial<MySQLDatabase>
    // & Partial<PostgresDatabase> (BaseDatabase extends DatabaseInstance)
    Database: {
        allow_list: 'string[]',
        cluster_size: 'number',
        connection_strings: 'object[]',
        created: 'string',
        encrypted: 'boolean',
        engine: 'enum:mysql|postgresql',
        engine_config: 'object',
        hosts: 'null|object',
        id: 'number',
        'instance_uri?': 'string',
        label: 'string',
        members: 'object',
        'oldest_restore_time?': 'string',
        'platform?': 'enum:rdbms-default|rdbms-legacy',
        port: 'number',
        'private_network?': 'null|object',
        'readonly_count?': 'number',
        region: 'string',
        'replication_commit_type?': 'enum:local|off|on|remote_apply|remote_write',
        'replication_type?': 'enum:asynch|none|semi_synch|synch',
        ssl_connection: 'boolean',
        status: 'enum:active|degraded|failed|migrated|migrating|provisioning|resizing'
            + '|restoring|resuming|suspended|suspending',
        total_disk_size_gb: 'number',
        type: 'string',
        updated: 'string',
        updates: {
            day_of_week: 'number',
            duration: 'number',
            frequency: 'enum:monthly|weekly',
            hour_of_day: 'number',
            'pending?': 'object[]',
            week_of_month: 'null|number',
        },
        used_disk_size_gb: 'null|number',
        version: 'string',
    },
    // databases/types.d.ts: DatabaseInstance, the items of getDatabases()
    // (the all-engines list: no port, ssl_connection or disk sizes)
    DatabaseInstance: {
        allow_list: 'string[]',
        cluster_size: 'number',
        connection_strings: 'object[]',
        created: 'string',
        encrypted: 'boolean',
        engine: 'enum:mysql|postgresql',
        engine_config: 'object',
        hosts: 'null|object',
        id: 'number',
        'instance_uri?': 'string',
        label: 'string',
        members: 'object',
        region: 'string',
        status: 'string',
        type: 'string',
        updated: 'string',
        updates: 'object',
        version: 'string',
    },
    // databases/types.d.ts: DatabaseHosts (when not null)
    DatabaseHosts: {
        endpoints: 'object[]',
        primary: 'string',
        'secondary?': 'string',
        'standby?': 'string',
    },
    // databases/types.d.ts: DatabaseCredentials, SSLFields, DatabaseBackup
    DatabaseCredentials: { password: 'string', username: 'string' },
    SSLFields: { ca_certificate: 'string' },
    DatabaseBackup: {
        created: 'string',
        id: 'number',
        label: 'string',
        type: 'enum:auto|snapshot',
    },
};

// Declared fields the contract writes with another name (its introduction:
// "the interactive instance shell is called `shell`").
export const RENAMED = {
    'Profile.lish_auth_method': 'shell_auth_method',
};

// Declared fields the contract (4.174.0) does not have.
export const BEYOND = new Set([
    'Profile.user_type',                      // parent/child accounts
    'Region.placement_group_limits',          // placement groups
    'LinodeType.accelerated_devices',         // accelerated compute plans
    'Database.connection_strings',            // deprecated, rdbms-legacy
    'Database.engine_config',                 // advanced engine settings
    'Database.members',                       // per-node roles
    'DatabaseInstance.connection_strings',
    'DatabaseInstance.engine_config',
    'DatabaseInstance.members',
    'DatabaseHosts.endpoints',                // host endpoint roles
]);

// The statuses the contract adds to the library's DatabaseStatus union
// ("updating" after every PUT per docs/conventions.md, "backing_up" while a snapshot
// runs): reported as notes, like the fields above.
export const EXTRA_VALUES = {
    'Database.status': new Set(['updating', 'backing_up']),
};

function typeOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    return typeof v;
}

// One alternative of a type expression ("string", "string[]", "enum:a|b"...).
function matchesOne(alt, v) {
    if (alt === 'null') return v === null;
    if (alt.endsWith('[]')) {
        const inner = alt.slice(0, -2);
        return Array.isArray(v) && v.every((x) => matchesOne(inner, x));
    }
    if (alt === 'object') return typeOf(v) === 'object';
    return typeOf(v) === alt;
}

function matches(expr, v) {
    // "null|enum:a|b": the enum takes the rest of the expression.
    const enumAt = expr.indexOf('enum:');
    const plain = enumAt < 0 ? expr : expr.slice(0, enumAt).replace(/\|$/, '');
    const values = enumAt < 0 ? null : expr.slice(enumAt + 5).split('|');
    if (plain && plain.split('|').some((alt) => matchesOne(alt, v))) return true;
    return values !== null && typeof v === 'string' && values.includes(v);
}

/*
 * Checks `value` against INTERFACES[name].  Returns the notes (renamed and
 * beyond-contract fields met); throws an Error listing every mismatch.
 */
export function checkShape(name, value, notes = new Set()) {
    const problems = [];
    walk(INTERFACES[name], value, name, problems, notes);
    if (problems.length) {
        const err = new Error(`${name} does not match the library's interface:\n  `
                              + problems.join('\n  '));
        err.body = value;
        throw err;
    }
    return notes;
}

function walk(spec, value, path, problems, notes) {
    if (typeOf(value) !== 'object') {
        problems.push(`${path}: expected an object, got ${JSON.stringify(value)}`);
        return;
    }
    for (const [rawKey, sub] of Object.entries(spec)) {
        const optional = rawKey.endsWith('?');
        const key = optional ? rawKey.slice(0, -1) : rawKey;
        const where = `${path}.${key}`;
        const declared = where.replace(/\[\d+\]/g, '');
        if (RENAMED[declared]) {
            if (!(key in value) && RENAMED[declared] in value) {
                notes.add(`${declared}: served as "${RENAMED[declared]}" (contract name)`);
                continue;
            }
        }
        if (!(key in value)) {
            if (optional) continue;
            if (BEYOND.has(declared)) {
                notes.add(`${declared}: absent (not in the contract)`);
                continue;
            }
            problems.push(`${where}: missing`);
            continue;
        }
        const v = value[key];
        if (typeof sub === 'string') {
            if (!matches(sub, v)) {
                const extra = EXTRA_VALUES[declared];
                if (extra && extra.has(v)) {
                    notes.add(`${declared}: "${v}" (a contract value the library's union lacks)`);
                } else {
                    problems.push(`${where}: expected ${sub}, got ${JSON.stringify(v)}`);
                }
            }
        } else if (sub.items) {
            if (!Array.isArray(v)) {
                problems.push(`${where}: expected an array, got ${JSON.stringify(v)}`);
            } else {
                v.forEach((item, i) => walk(sub.items, item, `${where}[${i}]`, problems, notes));
            }
        } else {
            walk(sub, v, where, problems, notes);
        }
    }
}
