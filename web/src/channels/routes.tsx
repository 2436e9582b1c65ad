import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
import './channels.css';

const ChannelsPage = lazy(() => import('./ChannelsPage').then((m) => ({ default: m.ChannelsPage })));
const ChannelFormPage = lazy(() => import('./ChannelFormPage').then((m) => ({ default: m.ChannelFormPage })));

/** The alert channels' routes, owned by this folder (mounted inside the signed-in layout). */
export const channelRoutes: RouteObject[] = [
  { path: 'channels', element: <ChannelsPage /> },
  { path: 'channels/new', element: <ChannelFormPage /> },
  { path: 'channels/:id/edit', element: <ChannelFormPage /> },
];
