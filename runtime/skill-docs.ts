/** Skill docs generated per connector (codegen/emit/skill-docs.ts), shaped after the reference service's SkillDocsResponse. */

export type ContentBlock =
  | { type: 'heading'; text: string; level: number }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; items: string[] }
  | { type: 'code'; language: string; code: string }
  | { type: 'table'; headers: string[]; rows: string[][] };

export interface SkillSection {
  id: string;
  title: string;
  summary: string;
  markdown: string;
  blocks: ContentBlock[];
}

export interface SkillDocs {
  id: string;
  title: string;
  summary: string;
  /** Fingerprint of the connector definition the docs were generated from. */
  version: string;
  tags: string[];
  /** The first section ("overview") is the default document. */
  sections: SkillSection[];
}
