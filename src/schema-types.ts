/**
 * A small type-level reader of JSON Schema: step arguments are declared once as a schema literal
 * (`as const`), and their TypeScript type is derived from it rather than restated. Covers the subset
 * our schemas use: type (string/number/integer/boolean/null/array/object), enum, const,
 * properties + required, items, anyOf/oneOf, additionalProperties as a schema.
 */
export type JsonSchema = {
  readonly type?: JsonTypeName | readonly JsonTypeName[];
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: { readonly [k: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly [k: string]: unknown;
};
type JsonTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

type Prettify<T> = { [K in keyof T]: T[K] } & {};

type FromType<S, T> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends 'object'
            ? FromObject<S>
            : unknown;

type FromObject<S> = S extends { properties: infer P }
  ? Prettify<
      {
        -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: FromSchema<P[K]>;
      } & {
        -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: FromSchema<P[K]>;
      } & (S extends { additionalProperties: infer A } ? (A extends JsonSchema ? { [k: string]: FromSchema<A> } : {}) : {})
    >
  : S extends { additionalProperties: infer A }
    ? A extends JsonSchema
      ? { [k: string]: FromSchema<A> }
      : Record<string, unknown>
    : Record<string, unknown>;

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R : never;

export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? FromSchema<A>
      : S extends { oneOf: readonly (infer A)[] }
        ? FromSchema<A>
        : S extends { type: readonly (infer T)[] }
          ? FromType<S, T>
          : S extends { type: infer T }
            ? FromType<S, T>
            : unknown;
