import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** For high-entropy secrets (API keys, refresh/reset/invite tokens): a fast hash is enough. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * A fresh secret with an expiry (refresh, reset and invite tokens): the clear token goes to its
 * holder, only its hash is stored.
 */
export function issueSecret(nowMs: number, ttlMs: number): { token: string; hash: string; expiresAt: Date } {
  const token = randomToken();
  return { token, hash: sha256(token), expiresAt: new Date(nowMs + ttlMs) };
}

export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

// argon2id (the library's default algorithm) with OWASP's minimum parameters.
const ARGON2 = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
export const hashPassword = (password: string): Promise<string> => argon2Hash(password, ARGON2);
export const verifyPassword = (hash: string, password: string): Promise<boolean> =>
  argon2Verify(hash, password).catch(() => false);

/** AES-256-GCM for secrets kept at rest (AI provider keys). Output: iv.tag.ciphertext, base64url. */
export function createEncryptor(secret: string) {
  const key = createHash('sha256').update(secret).digest();
  return {
    encrypt(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
    },
    decrypt(sealed: string): string {
      const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
      if (!iv || !tag || !body) throw new Error('malformed ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    },
  };
}
export type Encryptor = ReturnType<typeof createEncryptor>;
