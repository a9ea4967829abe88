import type { ConnectorDefinition } from '../../runtime/definition.js';
import { GENERATED_HEADER } from './header.js';

export function emitDefinition(definition: ConnectorDefinition): string {
  return `${GENERATED_HEADER}import type { ConnectorDefinition } from '../../definition.js';\n\nexport const definition: ConnectorDefinition = ${JSON.stringify(definition, null, 2)};\n`;
}
