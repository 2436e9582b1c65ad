import initSqlJs from 'sql.js';

/*
 * An Uptime Kuma database made with Kuma's own schema: the tables the importer reads, as
 * louislam/uptime-kuma creates them in db/knex_init_db.js at commit
 * a5252f0b1a1fbd6cf96f6c725bdfabc03742d735 (knex's column types written as SQLite declares them),
 * with the columns its knex migrations add that the importer reads: `description`
 * (2023-06-30-1354-add-description-monitor.js), `timeout` (patch-add-timeout-monitor, converted in
 * the same file), maintenance `cron`/`timezone`/`duration` (2023-06-30-1401-maintenance-cron.js),
 * and `push_token` widened to 32 characters (2023-10-11-1915-push-token-to-32.js).
 */
const KUMA_SCHEMA = `
CREATE TABLE \`user\` (\`id\` integer not null primary key autoincrement, \`username\` varchar(255) not null, \`password\` varchar(255), \`active\` boolean not null default '1', \`timezone\` varchar(150), \`twofa_secret\` varchar(64), \`twofa_status\` boolean not null default '0', \`twofa_last_token\` varchar(6));
CREATE UNIQUE INDEX \`user_username_unique\` on \`user\` (\`username\`);
CREATE TABLE \`monitor\` (\`id\` integer not null primary key autoincrement, \`name\` varchar(150), \`active\` boolean not null default '1', \`user_id\` integer, \`interval\` integer not null default '20', \`url\` text, \`type\` varchar(20), \`weight\` integer default '2000', \`hostname\` varchar(255), \`port\` integer, \`created_date\` datetime not null default CURRENT_TIMESTAMP, \`keyword\` varchar(255), \`maxretries\` integer not null default '0', \`ignore_tls\` boolean not null default '0', \`upside_down\` boolean not null default '0', \`maxredirects\` integer not null default '10', \`accepted_statuscodes_json\` text not null default '["200-299"]', \`dns_resolve_type\` varchar(5), \`dns_resolve_server\` varchar(255), \`dns_last_result\` varchar(255), \`retry_interval\` integer not null default '0', \`push_token\` varchar(32) default null, \`method\` text not null default 'GET', \`body\` text default null, \`headers\` text default null, \`basic_auth_user\` text default null, \`basic_auth_pass\` text default null, \`docker_host\` integer, \`docker_container\` varchar(255), \`proxy_id\` integer, \`expiry_notification\` boolean default '1', \`mqtt_topic\` text, \`mqtt_success_message\` varchar(255), \`mqtt_username\` varchar(255), \`mqtt_password\` varchar(255), \`database_connection_string\` varchar(2000), \`database_query\` text, \`auth_method\` varchar(250), \`auth_domain\` text, \`auth_workstation\` text, \`grpc_url\` varchar(255) default null, \`grpc_protobuf\` text default null, \`grpc_body\` text default null, \`grpc_metadata\` text default null, \`grpc_method\` text default null, \`grpc_service_name\` text default null, \`grpc_enable_tls\` boolean not null default '0', \`radius_username\` varchar(255), \`radius_password\` varchar(255), \`radius_calling_station_id\` varchar(50), \`radius_called_station_id\` varchar(50), \`radius_secret\` varchar(255), \`resend_interval\` integer not null default '0', \`packet_size\` integer not null default '56', \`game\` varchar(255), \`http_body_encoding\` varchar(25), \`description\` text default null, \`timeout\` float not null default '0', foreign key(\`user_id\`) references \`user\`(\`id\`) on delete SET NULL on update CASCADE);
CREATE TABLE \`heartbeat\` (\`id\` integer not null primary key autoincrement, \`important\` boolean not null default '0', \`monitor_id\` integer not null, \`status\` smallint not null, \`msg\` text, \`time\` datetime not null, \`ping\` integer, \`duration\` integer not null default '0', \`down_count\` integer not null default '0', foreign key(\`monitor_id\`) references \`monitor\`(\`id\`) on delete CASCADE on update CASCADE);
CREATE TABLE \`maintenance\` (\`id\` integer not null primary key autoincrement, \`title\` varchar(150) not null, \`description\` text not null, \`user_id\` integer, \`active\` boolean not null default '1', \`strategy\` varchar(50) not null default 'single', \`start_date\` datetime, \`end_date\` datetime, \`start_time\` time, \`end_time\` time, \`weekdays\` varchar(250) default '[]', \`days_of_month\` text default '[]', \`interval_day\` integer, \`cron\` text, \`timezone\` varchar(255), \`duration\` integer, foreign key(\`user_id\`) references \`user\`(\`id\`) on delete SET NULL on update CASCADE);
CREATE TABLE \`status_page\` (\`id\` integer not null primary key autoincrement, \`slug\` varchar(255) not null, \`title\` varchar(255) not null, \`description\` text, \`icon\` varchar(255) not null, \`theme\` varchar(30) not null, \`published\` boolean not null default '1', \`search_engine_index\` boolean not null default '1', \`show_tags\` boolean not null default '0', \`password\` varchar(255), \`created_date\` datetime not null default CURRENT_TIMESTAMP, \`modified_date\` datetime not null default CURRENT_TIMESTAMP, \`footer_text\` text, \`custom_css\` text, \`show_powered_by\` boolean not null default '1', \`google_analytics_tag_id\` varchar(255));
CREATE UNIQUE INDEX \`status_page_slug_unique\` on \`status_page\` (\`slug\`);
CREATE TABLE \`group\` (\`id\` integer not null primary key autoincrement, \`name\` varchar(255) not null, \`created_date\` datetime not null default CURRENT_TIMESTAMP, \`public\` boolean not null default '0', \`active\` boolean not null default '1', \`weight\` integer not null default '1000', \`status_page_id\` integer);
CREATE TABLE \`monitor_group\` (\`id\` integer not null primary key autoincrement, \`monitor_id\` integer not null, \`group_id\` integer not null, \`weight\` integer not null default '1000', \`send_url\` boolean not null default '0', foreign key(\`monitor_id\`) references \`monitor\`(\`id\`) on delete CASCADE on update CASCADE, foreign key(\`group_id\`) references \`group\`(\`id\`) on delete CASCADE on update CASCADE);
CREATE TABLE \`monitor_maintenance\` (\`id\` integer not null primary key autoincrement, \`monitor_id\` integer not null, \`maintenance_id\` integer not null, foreign key(\`monitor_id\`) references \`monitor\`(\`id\`) on delete CASCADE on update CASCADE, foreign key(\`maintenance_id\`) references \`maintenance\`(\`id\`) on delete CASCADE on update CASCADE);
CREATE TABLE \`notification\` (\`id\` integer not null primary key autoincrement, \`name\` varchar(255), \`active\` boolean not null default '1', \`user_id\` integer, \`is_default\` boolean not null default '0', \`config\` text);
CREATE TABLE \`monitor_notification\` (\`id\` integer not null primary key autoincrement, \`monitor_id\` integer not null, \`notification_id\` integer not null, foreign key(\`monitor_id\`) references \`monitor\`(\`id\`) on delete CASCADE on update CASCADE, foreign key(\`notification_id\`) references \`notification\`(\`id\`) on delete CASCADE on update CASCADE);
CREATE TABLE \`tag\` (\`id\` integer not null primary key autoincrement, \`name\` varchar(255) not null, \`color\` varchar(255) not null, \`created_date\` datetime not null default CURRENT_TIMESTAMP);
CREATE TABLE \`monitor_tag\` (\`id\` integer not null primary key autoincrement, \`monitor_id\` integer not null, \`tag_id\` integer not null, \`value\` text, foreign key(\`monitor_id\`) references \`monitor\`(\`id\`) on delete CASCADE on update CASCADE, foreign key(\`tag_id\`) references \`tag\`(\`id\`) on delete CASCADE on update CASCADE);
`;

/** Rows as Kuma's UI writes them (its defaults left to the schema): push, HTTP and other monitors, maintenance, status pages (one unpublished, one whose slug a test gives another workspace). */
const KUMA_ROWS = `
INSERT INTO user (id, username, password) VALUES (1, 'admin', '$2a$10$hashedhashedhashedhashedhashedhashedhashedhashedhashe');
INSERT INTO monitor (id, name, type, interval, push_token, maxretries, retry_interval, user_id, description) VALUES (1, 'Nightly backup', 'push', 86400, 'Y3mQp7Rk2sVt9WxZa4Bc6De8Fg1Hj5Kn', 1, 600, 1, 'Pushes when restic finishes');
INSERT INTO monitor (id, name, type, interval, push_token, active, user_id) VALUES (2, 'Old push (paused)', 'push', 300, 'aB3dE5gH7j', 0, 1);
INSERT INTO monitor (id, name, type, url, method, interval, maxretries, timeout, accepted_statuscodes_json, user_id) VALUES (3, 'Website', 'http', 'https://example.com/', 'GET', 60, 2, 48, '["200-299"]', 1);
INSERT INTO monitor (id, name, type, url, method, interval, accepted_statuscodes_json, headers, user_id) VALUES (4, 'API health', 'http', 'https://api.example.com/health', 'HEAD', 120, '["200","204"]', '{"X-Probe":"kuma"}', 1);
INSERT INTO monitor (id, name, type, hostname, interval, user_id) VALUES (5, 'Router', 'ping', '192.168.1.1', 60, 1);
INSERT INTO monitor (id, name, type, url, interval, keyword, user_id) VALUES (6, 'Login page', 'keyword', 'https://example.com/login', 60, 'Sign in', 1);
INSERT INTO monitor (id, name, type, interval, push_token, user_id) VALUES (7, 'Short token', 'push', 60, 'abc', 1);
INSERT INTO tag (id, name, color) VALUES (1, 'prod', '#059669');
INSERT INTO monitor_tag (monitor_id, tag_id, value) VALUES (1, 1, ''), (3, 1, 'eu');
INSERT INTO notification (id, name, config, user_id) VALUES (1, 'Ops Telegram', '{"type":"telegram","telegramBotToken":"secret"}', 1);
INSERT INTO monitor_notification (monitor_id, notification_id) VALUES (3, 1);
INSERT INTO maintenance (id, title, description, strategy, start_date, end_date, timezone, user_id) VALUES (1, 'Database upgrade', 'Postgres 16', 'single', '2026-03-05 22:00:00', '2026-03-05 23:30:00', 'Europe/Berlin', 1);
INSERT INTO maintenance (id, title, description, strategy, cron, duration, timezone, user_id) VALUES (2, 'Weekly reboot', '', 'cron', '0 3 * * 0', 30, 'UTC', 1);
INSERT INTO maintenance (id, title, description, strategy, start_date, end_date, user_id) VALUES (3, 'Last year''s move', '', 'single', '2025-01-01 10:00:00', '2025-01-01 12:00:00', 1);
INSERT INTO monitor_maintenance (monitor_id, maintenance_id) VALUES (3, 1);
INSERT INTO status_page (id, slug, title, icon, theme) VALUES (1, 'acme', 'Acme status', '/icon.svg', 'light');
INSERT INTO "group" (id, name, status_page_id, weight) VALUES (1, 'Services', 1, 1);
INSERT INTO monitor_group (monitor_id, group_id, weight) VALUES (3, 1, 1), (5, 1, 2);
INSERT INTO status_page (id, slug, title, icon, theme, published, description, footer_text) VALUES (2, 'acme-internal', 'Acme internal', '/icon.svg', 'dark', 0, 'For the team', 'Made with care');
INSERT INTO status_page (id, slug, title, icon, theme) VALUES (3, 'shared-status', 'Shared status', '/icon.svg', 'light');
INSERT INTO "group" (id, name, status_page_id, weight) VALUES (2, 'Jobs', 2, 1), (3, 'APIs', 2, 2), (4, 'Empty', 2, 3), (5, 'Services', 3, 1);
INSERT INTO monitor_group (monitor_id, group_id, weight) VALUES (1, 2, 1), (4, 3, 1), (3, 5, 1);
INSERT INTO heartbeat (monitor_id, status, msg, time) VALUES (3, 1, '200 - OK', '2026-02-28 12:00:00');
`;

export const KUMA_PUSH_TOKEN = 'Y3mQp7Rk2sVt9WxZa4Bc6De8Fg1Hj5Kn';

/** The database file's bytes, as `data/kuma.db` would hold them. */
export async function kumaDatabase(): Promise<Uint8Array> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.exec(KUMA_SCHEMA);
  db.exec(KUMA_ROWS);
  const bytes = db.export();
  db.close();
  return bytes;
}
