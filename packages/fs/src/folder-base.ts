// What a generation (generation.ts) asks of the store folder it belongs to (folder.ts): where its
// `memories` and `.memdir` are, and the base folder opened. A leaf of its own, so that the folder,
// which makes generations, and the generation, which reopens through its folder, import no circle.
import type { Dir } from './dir.js';

/** The store folder as a generation sees it. */
export interface FolderBase {
  readonly memoriesPath: string;
  readonly memdirPath: string;
  /** The base folder (`{root}` and its segments), made when `create`; null when it is missing. */
  openBase(create: boolean): Promise<Dir | null>;
}
