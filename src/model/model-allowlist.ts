/**
 * The models a chat request may name (ALLOWED_MODELS): the front end lets students pick one, the
 * service decides what the university pays for. Ids are compared exactly after trimming: a near-miss
 * (another case, inner spaces, a suffix, a look-alike letter) is refused, never mapped to an allowed
 * model. The title and extraction models are the service's own choice and never pass through here.
 */
export class ModelAllowlist {
  /** `any`: every `<vendor>/<model>` id (ALLOWED_MODELS=*, or unset outside production). */
  readonly any: boolean;
  /** The allowed ids (the default model first); with `any`, the default model alone. */
  readonly ids: readonly string[];

  readonly defaultModel: string;

  /** Built from the configuration's gateway part (ALLOWED_MODELS as parsed, DEFAULT_MODEL). */
  constructor(gateway: { allowedModels: readonly string[] | '*'; defaultModel: string }) {
    const { allowedModels: allowed, defaultModel } = gateway;
    this.defaultModel = defaultModel;
    this.any = allowed === '*';
    this.ids = allowed === '*' ? [defaultModel] : [defaultModel, ...allowed.filter((id) => id !== defaultModel)];
  }

  /** Whether a request may name `model` (already trimmed by the request schema). */
  allows(model: string): boolean {
    return this.any || this.ids.includes(model);
  }

  /** For the start log and the 400's detail. */
  describe(): string {
    return this.any ? 'any model' : this.ids.join(', ');
  }
}
