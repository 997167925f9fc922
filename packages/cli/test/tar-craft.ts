// A tar writer for crafted archives, independent of src/archive.ts: a refusal is checked against
// what a real attacker could send, byte by byte.

export function craftHeader(
  name: string,
  size: number,
  type: string,
  options: { linkname?: string; checksum?: number } = {},
) {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 8, 'ascii');
  block.write('0000000\0', 108, 8, 'ascii');
  block.write('0000000\0', 116, 8, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 12, 'ascii');
  block.write('00000000000\0', 136, 12, 'ascii');
  block.write('        ', 148, 8, 'ascii');
  block.write(type, 156, 1, 'ascii');
  if (options.linkname) block.write(options.linkname, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 8, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${(options.checksum ?? sum).toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

export function padded(content: Buffer): Buffer {
  const rest = content.length % 512;
  return rest === 0 ? content : Buffer.concat([content, Buffer.alloc(512 - rest)]);
}
