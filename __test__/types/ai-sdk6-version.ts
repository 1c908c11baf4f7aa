// Under ai 6 (tsconfig.ai-sdk.json) seamguard's middlewares say 'v3', the
// version of the models ai 6 wraps.
import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';

const guarding: 'v3' = createGuard().middleware.specificationVersion;
const guard: 'v3' = createGuard().specificationVersion;
const filtering: 'v3' = scaffoldingMiddleware().specificationVersion;
// @ts-expect-error ai 6's models are v3
const notV4: 'v4' = scaffoldingMiddleware().specificationVersion;
void [guarding, guard, filtering, notV4];
