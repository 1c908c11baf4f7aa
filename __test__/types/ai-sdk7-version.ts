// Under ai 7 (tsconfig.ai-sdk7.json) seamguard's middlewares say 'v4', the
// version of the models ai 7 wraps.
import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';

const guarding: 'v4' = createGuard().middleware.specificationVersion;
const guard: 'v4' = createGuard().specificationVersion;
const filtering: 'v4' = scaffoldingMiddleware().specificationVersion;
// @ts-expect-error ai 7's models are v4
const notV3: 'v3' = scaffoldingMiddleware().specificationVersion;
void [guarding, guard, filtering, notV3];
