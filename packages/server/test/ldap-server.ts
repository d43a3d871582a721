import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './network.js';

/*
 * A real OpenLDAP directory for the LDAP identity-provider tests: Debian's slapd
 * (`.ci/run` installs it), started on a free loopback port from a generated slapd.conf in a
 * temporary directory, seeded with slapadd, stopped and removed afterwards. No system service
 * and no system configuration are touched.
 */

export const LDAP_BASE = 'dc=example,dc=org';
export const LDAP_ADMIN = { dn: `cn=admin,${LDAP_BASE}`, password: 'admin-secret' };

/** The seeded people (uid, password, mail, cn) and groups (cn → members' uids). */
const LDAP_PEOPLE = [
    { uid: 'ada', password: 'ada-password', mail: 'ada@example.org', cn: 'Ada Lovelace', sn: 'Lovelace', givenName: 'Ada' },
    { uid: 'bob', password: 'bob-password', mail: 'bob@example.org', cn: 'Bob Builder', sn: 'Builder', givenName: 'Bob' },
] as const;
const LDAP_GROUPS = { engineers: ['ada'], staff: ['ada', 'bob'] } as const;

const SLAPD = process.env.SLAPD_PATH ?? '/usr/sbin/slapd';
const SLAPADD = process.env.SLAPADD_PATH ?? '/usr/sbin/slapadd';

function seed(): string {
    const entries = [
        `dn: ${LDAP_BASE}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example`,
        `dn: ou=people,${LDAP_BASE}\nobjectClass: organizationalUnit\nou: people`,
        `dn: ou=groups,${LDAP_BASE}\nobjectClass: organizationalUnit\nou: groups`,
        ...LDAP_PEOPLE.map((person) => [
            `dn: uid=${person.uid},ou=people,${LDAP_BASE}`, 'objectClass: inetOrgPerson', `uid: ${person.uid}`, `cn: ${person.cn}`, `sn: ${person.sn}`,
            `givenName: ${person.givenName}`, `mail: ${person.mail}`, `userPassword: ${person.password}`,
        ].join('\n')),
        ...Object.entries(LDAP_GROUPS).map(([cn, members]) => [
            `dn: cn=${cn},ou=groups,${LDAP_BASE}`, 'objectClass: groupOfNames', `cn: ${cn}`,
            ...members.map((uid) => `member: uid=${uid},ou=people,${LDAP_BASE}`),
        ].join('\n')),
    ];
    return `${entries.join('\n\n')}\n`;
}

function config(dir: string): string {
    return [
        ...['core', 'cosine', 'inetorgperson', 'nis'].map((schema) => `include /etc/ldap/schema/${schema}.schema`),
        `pidfile ${join(dir, 'slapd.pid')}`,
        `argsfile ${join(dir, 'slapd.args')}`,
        'modulepath /usr/lib/ldap',
        'moduleload back_mdb',
        'database mdb',
        `suffix "${LDAP_BASE}"`,
        `rootdn "${LDAP_ADMIN.dn}"`,
        `rootpw ${LDAP_ADMIN.password}`,
        `directory ${join(dir, 'data')}`,
        'maxsize 10485760',
        // anonymous may authenticate (bind) but not read: a search needs the service account
        'access to attrs=userPassword by self write by anonymous auth by * none',
        'access to * by users read by anonymous auth by * none',
        '',
    ].join('\n');
}

async function answers(port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
            socket.end();
            resolve(true);
        });
        socket.on('error', () => resolve(false));
    });
}

export interface LdapServer {
    url: string;
    stop(): Promise<void>;
}

export async function startLdapServer(): Promise<LdapServer> {
    const dir = mkdtempSync(join(tmpdir(), 'realmgate-slapd-'));
    mkdirSync(join(dir, 'data'));
    const conf = join(dir, 'slapd.conf');
    writeFileSync(conf, config(dir));
    writeFileSync(join(dir, 'seed.ldif'), seed());
    const added = spawnSync(SLAPADD, ['-f', conf, '-l', join(dir, 'seed.ldif')], { encoding: 'utf8' });
    if (added.status !== 0) throw new Error(`slapadd failed: ${added.stderr}`);
    const port = await freePort();
    const url = `ldap://127.0.0.1:${port}/`;
    // -d keeps slapd in the foreground, so the child is the server and stopping it stops the server
    const child: ChildProcess = spawn(SLAPD, ['-f', conf, '-h', url, '-d', '0'], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let up = false;
    for (let attempt = 0; attempt < 200 && !up; attempt++) {
        up = await answers(port);
        if (!up) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!up) {
        child.kill('SIGKILL');
        throw new Error('slapd did not start');
    }
    return {
        url,
        async stop() {
            child.kill('SIGTERM');
            await exited;
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
