import type { RouteObject } from 'react-router-dom';
import { SettingsPage } from './SettingsPage';
import './settings.css';

/** The settings screen, owned by this folder (mounted inside the signed-in layout). */
export const settingsRoutes: RouteObject[] = [{ path: 'settings', element: <SettingsPage /> }];
