// ESLint for the hand-written and the generated TypeScript (`npm run lint`).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      // `JSON.parse` and the tables are read as `unknown` and narrowed; a cast is how a table's
      // entry is given its type.
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
);
