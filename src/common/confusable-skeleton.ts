/** Names compared as people read them (contract §10): Unicode's confusable skeletons (UTS #39). */
import unhomoglyph from 'unhomoglyph';

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The UTS #39 skeleton of `text`, for comparison only: texts that read the same have equal skeletons. */
export function skeleton(text: string): string {
  // Of the NFKC form (NFKD is its NFD): the data maps fullwidth ｌ to l but has no entry for ｍ.
  return unhomoglyph(text.normalize('NFKD').replace(DEFAULT_IGNORABLE, '')).normalize('NFD');
}

/** As `skeleton`, whatever the letter case: `MASTER`, `mаster` (Cyrillic а) and `ｍaster` are `master`. */
export function skeletonIgnoringCase(text: string): string {
  // Case first: the data maps I to l, so `Ian` and `ian` would differ if it came after.
  return skeleton(text.normalize('NFKC').toLowerCase());
}

/** A name compared whatever its case (contract §10): taken when either skeleton is another's, since neither alone catches all. */
export interface CaselessNameSkeletons {
  /** `MASTER`, `mаster` (Cyrillic а) and `ｍaster` are `master`'s. */
  caseless: string;
  /** `МIKEY` (Cyrillic М) is `MIKEY`'s: its lowercase `м` reads as no Latin letter. */
  written: string;
}

export const caselessNameSkeletons = (text: string): CaselessNameSkeletons => ({ caseless: skeletonIgnoringCase(text), written: skeleton(text) });

/** How names, sources and slugs are stored: trimmed by the caller, in NFC. */
export const toStored = (text: string): string => text.normalize('NFC');
