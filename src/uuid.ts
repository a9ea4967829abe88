/** A UUID as text, in any letter case (ids the service issues, ids clients send back), as a JSON Schema pattern. */
export const UUID_PATTERN_SOURCE = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The same pattern for code that tests a value itself. */
export const UUID_PATTERN = new RegExp(UUID_PATTERN_SOURCE);
