import type { ContentBlock } from '../../runtime/skill-docs.js';

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** Splits the generator's own markdown (headings, paragraphs, lists, fenced code, tables) into blocks. */
export function markdownToBlocks(markdown: string): ContentBlock[] {
  const lines = markdown.split('\n');
  const blocks: ContentBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i++;
    } else if (/^#{1,6} /.test(line)) {
      const level = line.indexOf(' ');
      blocks.push({ type: 'heading', text: line.slice(level + 1).trim(), level });
      i++;
    } else if (line.startsWith('```')) {
      const language = line.slice(3).trim();
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] as string).startsWith('```')) code.push(lines[i++] as string);
      i++;
      blocks.push({ type: 'code', language, code: code.join('\n') });
    } else if (line.startsWith('|')) {
      const headers = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && (lines[i] as string).startsWith('|')) rows.push(cells(lines[i++] as string));
      blocks.push({ type: 'table', headers, rows });
    } else if (line.startsWith('- ')) {
      const items: string[] = [];
      while (i < lines.length && (lines[i] as string).startsWith('- ')) items.push((lines[i++] as string).slice(2).trim());
      blocks.push({ type: 'list', items });
    } else {
      const text: string[] = [];
      while (i < lines.length && (lines[i] as string).trim() !== '' && !/^(#{1,6} |```|\||- )/.test(lines[i] as string)) text.push((lines[i++] as string).trim());
      blocks.push({ type: 'paragraph', text: text.join(' ') });
    }
  }
  return blocks;
}
