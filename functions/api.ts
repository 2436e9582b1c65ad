import { handle } from 'hono/aws-lambda';
import { awsDeps } from '../core/adapters/aws/deps.js';
import { createApp } from '../core/app.js';

/** API Gateway HTTP API (`ANY /api/{proxy+}`, `$default`) -> the Vigil app. */
export const handler = handle(createApp(awsDeps()));
