// Where the names of the namespaces are kept, for `listNamespaces` and `dropNamespace`.
//
// A namespace's scripts reach only the keys of its own hash tag, so on a Cluster no script of a
// namespace can write one registry shared by all of them. The registry is therefore kept per slot:
// each namespace registers itself in the registry key of its own slot, in the same script as the
// change that makes it hold something (a file or a version), and removes itself in the script that
// makes it hold nothing. The registry is never out of step with the namespaces, whatever crashes:
// there is no second request to lose. Listing merges the registries of a node's slots in one
// script per node (the masters side by side). On a single server there are no slots, and every
// namespace registers in one key.
//
// A registry member is `{parent chain} NUL {name} NUL {registrant chain}`: namespace `/a/b`
// registers `/ NUL a NUL /a/b` and `/a NUL b NUL /a/b`, so that `a` is listed below the root while
// anything lies in or beneath it, and dropping `a` finds every namespace nested in it.

/** CRC-16/XMODEM, as Redis Cluster hashes keys. */
const CRC_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
})();

const SLOTS = 16_384;

function crcOf(bytes: Iterable<number>, start = 0): number {
  let crc = start;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The Cluster slot of a key's hash tag (or of the key, without one), as Redis computes it. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  let hashed = key;
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  return crcOf(Buffer.from(hashed, 'utf8')) % SLOTS;
}

/** Per key prefix: for each slot, the number n whose tag `{prefix}#n` hashes to that slot. */
const slotTags = new Map<string, Uint32Array>();

function tagsOf(prefix: string): Uint32Array {
  let tags = slotTags.get(prefix);
  if (!tags) {
    // About 170,000 numbers tried (every slot found), once per prefix and process: a few ms.
    tags = new Uint32Array(SLOTS).fill(0xffffffff);
    const head = crcOf(Buffer.from(`${prefix}#`, 'utf8'));
    let left = SLOTS;
    for (let n = 0; left > 0; n++) {
      const digits = String(n);
      let crc = head;
      for (let index = 0; index < digits.length; index++) {
        crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ digits.charCodeAt(index)) & 0xff]!;
      }
      const slot = crc % SLOTS;
      if (tags[slot] === 0xffffffff) {
        tags[slot] = n;
        left--;
      }
    }
    slotTags.set(prefix, tags);
  }
  return tags;
}

/** The registry key on a single server: one for every namespace. */
export function serverRegistryKey(prefix: string): string {
  return `${prefix}{${prefix}#}:g`;
}

/** The registry key of Cluster slot `slot`: its hash tag hashes to that slot. */
export function slotRegistryKey(prefix: string, slot: number): string {
  return `${prefix}{${prefix}#${tagsOf(prefix)[slot]}}:g`;
}

/** The registry key a namespace whose keys begin with `base` registers in. */
export function registryKeyOf(prefix: string, base: string, cluster: boolean): string {
  return cluster ? slotRegistryKey(prefix, keySlot(base)) : serverRegistryKey(prefix);
}

/** The members namespace `chain` registers (none for the root, which is no namespace), joined by \x01. */
export function registrationOf(chain: string): string {
  if (chain === '/') return '';
  const names = chain.slice(1).split('/');
  const members: string[] = [];
  for (let depth = 0; depth < names.length; depth++) {
    const parent = depth === 0 ? '/' : `/${names.slice(0, depth).join('/')}`;
    members.push(`${parent}\u0000${names[depth]}\u0000${chain}`);
  }
  return members.join('\u0001');
}
