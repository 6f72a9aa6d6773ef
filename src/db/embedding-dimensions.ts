/**
 * Embedding dimensions: the one constant the vector column, the migrations and the embeddings client
 * share. The column is sized for the default EMBEDDING_MODEL; a configured model with other dimensions
 * is refused at start (db/migrate.ts), because stored vectors of two sizes cannot be compared.
 */

/** Dimensions of `text-embedding-3-small`, the default EMBEDDING_MODEL (CONTRACT.md "Configuration"). */
export const EMBEDDING_DIMENSIONS = 1536;

/** Output sizes of the embedding models we know (OpenAI's published defaults). */
const KNOWN_MODEL_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/**
 * Dimensions a model produces. Gateways prefix names with a vendor (`openai/text-embedding-3-small`),
 * so the last path segment is looked up. Unknown models are assumed to match the column; the
 * embeddings client then checks every vector it receives and fails loudly on a mismatch.
 */
export function embeddingDimensions(model: string): number {
  const name = model.trim().split('/').pop() ?? model;
  return KNOWN_MODEL_DIMENSIONS[name] ?? EMBEDDING_DIMENSIONS;
}
