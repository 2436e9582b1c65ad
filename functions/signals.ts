import { handle } from 'hono/aws-lambda';
import { awsDeps } from '../core/adapters/aws/deps.js';
import { createApp } from '../core/app.js';

/**
 * The ping surface (`ANY /api/signals/{proxy+}`) as its own Lambda, so ping traffic scales and
 * is throttled apart from the dashboard. It serves the same app until a signals-only app exists.
 */
export const handler = handle(createApp(awsDeps()));
