/**
 * The connectors' skill docs as the service serves them (GET /api/v1/skills/*): each connector's generated
 * docs/connectors/<type>.md is read and parsed once per service, and the words the skill search counts are
 * split once per section. The composition root builds one library per service.
 */
import { loadSkillDocs, type SkillDocs, type SkillSection } from '../../runtime/index.js';

/** Lowercase words of letters and digits; ids like users.list split into users and list. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A section with its words, split once for the skill search. */
export interface IndexedSection {
  section: SkillSection;
  titleWords: string[];
  bodyWords: string[];
}

export class SkillLibrary {
  private readonly loaded = new Map<string, Promise<SkillDocs | undefined>>();
  private readonly indexed = new Map<string, IndexedSection[]>();

  /** A connector type's docs; undefined for an unknown type. */
  docs(connectorType: string): Promise<SkillDocs | undefined> {
    let found = this.loaded.get(connectorType);
    if (!found) {
      found = loadSkillDocs(connectorType);
      this.loaded.set(connectorType, found);
      // A failed read (a missing file) is tried again next time rather than remembered.
      found.catch(() => this.loaded.delete(connectorType));
    }
    return found;
  }

  /** The sections of a connector type's docs with their words. */
  sections(connectorType: string, docs: SkillDocs): IndexedSection[] {
    let sections = this.indexed.get(connectorType);
    if (!sections) {
      sections = docs.sections.map((section) => ({
        section,
        titleWords: words(`${section.id} ${section.title}`),
        bodyWords: words(`${section.summary} ${section.markdown}`),
      }));
      this.indexed.set(connectorType, sections);
    }
    return sections;
  }
}
