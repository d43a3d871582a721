import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/*
 * A software WebAuthn authenticator for server-level tests (WebAuthn Level 3 §6): an EC P-256 key,
 * attestation `none`, and assertions built and signed here — authenticatorData (§6.1),
 * clientDataJSON (§5.8.1), an ECDSA signature over authenticatorData ‖ SHA-256(clientDataJSON) —
 * so the negative cases (wrong origin, replayed challenge, no user verification, a counter that
 * went back, a foreign realm's credential) need no browser. Each field is a knob a test turns.
 */

/** A tiny CBOR encoder (RFC 8949) for the shapes WebAuthn needs: integers, byte and text strings, maps. */
function head(major: number, length: number): Buffer {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 256) return Buffer.from([(major << 5) | 24, length]);
    const buffer = Buffer.alloc(3);
    buffer[0] = (major << 5) | 25;
    buffer.writeUInt16BE(length, 1);
    return buffer;
}

type Cbor = number | string | Buffer | Map<Cbor, Cbor>;

function cbor(value: Cbor): Buffer {
    if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
    if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
    if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface CeremonyKnobs {
    /** the origin the "browser" reports (default: the authenticator's) */
    origin?: string;
    /** the RP id whose hash the authenticator data carries (default: the authenticator's) */
    rpId?: string;
    /** user verified (default true) */
    userVerified?: boolean;
    /** the signature counter to report (default: the next one) */
    signCount?: number;
}

export class SoftwareAuthenticator {
    readonly credentialId = randomBytes(32);
    readonly aaguid = Buffer.alloc(16);
    private readonly privateKey: KeyObject;
    private readonly publicJwk: { x: string; y: string };
    counter = 0;

    constructor(readonly rpId: string, readonly origin: string, readonly userHandle?: string) {
        const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        this.privateKey = pair.privateKey;
        const jwk = pair.publicKey.export({ format: 'jwk' });
        this.publicJwk = { x: jwk.x!, y: jwk.y! };
    }

    get id(): string {
        return this.credentialId.toString('base64url');
    }

    private coseKey(): Buffer {
        return cbor(new Map<Cbor, Cbor>([
            [1, 2], [3, -7], [-1, 1], [-2, Buffer.from(this.publicJwk.x, 'base64url')], [-3, Buffer.from(this.publicJwk.y, 'base64url')],
        ]));
    }

    private authenticatorData(knobs: CeremonyKnobs, attested: boolean): Buffer {
        const flags = FLAG_UP | ((knobs.userVerified ?? true) ? FLAG_UV : 0) | (attested ? FLAG_AT : 0);
        const count = Buffer.alloc(4);
        count.writeUInt32BE(knobs.signCount ?? this.counter);
        const parts: Buffer[] = [sha256(knobs.rpId ?? this.rpId), Buffer.from([flags]), count];
        if (attested) {
            const length = Buffer.alloc(2);
            length.writeUInt16BE(this.credentialId.length);
            parts.push(this.aaguid, length, this.credentialId, this.coseKey());
        }
        return Buffer.concat(parts);
    }

    private clientData(type: string, challenge: string, knobs: CeremonyKnobs): Buffer {
        return Buffer.from(JSON.stringify({ type, challenge, origin: knobs.origin ?? this.origin, crossOrigin: false }));
    }

    /** RegistrationResponseJSON (§5.2.1) to creation options carrying `challenge`. */
    register(challenge: string, knobs: CeremonyKnobs = {}) {
        const authData = this.authenticatorData({ ...knobs, signCount: knobs.signCount ?? 0 }, true);
        const attestationObject = cbor(new Map<Cbor, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
        return {
            id: this.id, rawId: this.id, type: 'public-key' as const,
            response: {
                clientDataJSON: this.clientData('webauthn.create', challenge, knobs).toString('base64url'),
                attestationObject: attestationObject.toString('base64url'), transports: ['internal'],
            },
            clientExtensionResults: {}, authenticatorAttachment: 'platform',
        };
    }

    /** AuthenticationResponseJSON (§5.2.2) to request options carrying `challenge`; the counter grows unless a knob sets it. */
    assert(challenge: string, knobs: CeremonyKnobs = {}) {
        if (knobs.signCount === undefined) this.counter += 1;
        const authData = this.authenticatorData(knobs, false);
        const clientDataJSON = this.clientData('webauthn.get', challenge, knobs);
        const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
        return {
            id: this.id, rawId: this.id, type: 'public-key' as const,
            response: {
                clientDataJSON: clientDataJSON.toString('base64url'), authenticatorData: authData.toString('base64url'),
                signature: signature.toString('base64url'),
                ...(this.userHandle ? { userHandle: Buffer.from(this.userHandle).toString('base64url') } : {}),
            },
            clientExtensionResults: {}, authenticatorAttachment: 'platform',
        };
    }
}
