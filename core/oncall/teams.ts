import type { Ctx } from '../context.js';
import { authorize } from '../auth/authorize.js';
import type { Role } from '../auth/roles.js';
import type { Deps } from '../deps.js';
import { conflict, notFound } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { isConditionalFailure } from '../store/conditional.js';
import type { TeamItem } from '../store/entities/team.js';
import type { TeamMemberItem } from '../store/entities/teamMember.js';
import { pageOfQuery } from '../store/page.js';
import { refuseIfTargeted } from '../escalation/policyTargets.js';
import { peopleById, requireWorkspaceMembers } from './people.js';
import type { Team, TeamCreate, TeamMember, TeamUpdate } from './teamSchema.js';
import { untilProcessed } from '../store/batch.js';

/** Teams and their members (docs/guide/oncall-and-escalation.md). VIEWER reads; ADMIN writes. */

async function membersOf(deps: Deps, teamId: number): Promise<TeamMemberItem[]> {
  return (await deps.store.entities.teamMember.query.byTeam({ teamId }).go({ pages: 'all' })).data;
}

/** The user ids of a team (the escalation target `TEAM`). */
export async function teamUserIds(deps: Deps, teamId: number): Promise<number[]> {
  return (await membersOf(deps, teamId)).map((m) => m.userId);
}

async function toTeam(deps: Deps, team: TeamItem): Promise<Team> {
  const members = await membersOf(deps, team.teamId);
  const people = await peopleById(
    deps,
    members.map((m) => m.userId),
  );
  return {
    id: team.teamId,
    workspaceId: team.workspaceId,
    name: team.name,
    description: team.description ?? null,
    members: members.map((m) => ({ id: m.teamMemberId, userId: m.userId, email: people.get(m.userId)?.email ?? '', name: people.get(m.userId)?.name ?? null })),
    createdAt: team.createdAt,
    updatedAt: team.updatedAt,
  };
}

/** A team the caller may act on at `minimum`, or 404: missing and foreign look the same. */
export async function loadTeam(ctx: Ctx, teamId: number, minimum: Role): Promise<TeamItem> {
  const team = (await ctx.deps.store.entities.team.get({ teamId }).go()).data;
  if (!team) throw notFound('Team');
  await authorize(ctx.deps, ctx.actor, team.workspaceId, minimum, 'Team');
  return team;
}

/** For other areas holding team ids: the team if it is of `workspaceId`, else 404. */
export async function findTeamInWorkspace(deps: Deps, workspaceId: number, teamId: number): Promise<TeamItem> {
  const team = (await deps.store.entities.team.get({ teamId }).go()).data;
  if (!team || team.workspaceId !== workspaceId) throw notFound('Team');
  return team;
}

export async function createTeam(ctx: Ctx, input: TeamCreate): Promise<Team> {
  await authorize(ctx.deps, ctx.actor, input.workspaceId, 'ADMIN', 'Workspace');
  const iso = ctx.deps.clock.now().toISOString();
  const teamId = await ctx.deps.store.nextId('team');
  const created = await ctx.deps.store.entities.team
    .create({ teamId, workspaceId: input.workspaceId, name: input.name, description: input.description ?? undefined, createdAt: iso, updatedAt: iso })
    .go();
  return toTeam(ctx.deps, created.data);
}

export async function listTeams(ctx: Ctx, query: { workspaceId: number; page: number; limit: number }): Promise<Page<Team>> {
  await authorize(ctx.deps, ctx.actor, query.workspaceId, 'VIEWER', 'Workspace');
  const teams = ctx.deps.store.entities.team.query.byWorkspace({ workspaceId: query.workspaceId });
  return pageOfQuery(ctx.deps.store, teams, query.page, query.limit, (team) => toTeam(ctx.deps, team));
}

export async function getTeam(ctx: Ctx, teamId: number): Promise<Team> {
  return toTeam(ctx.deps, await loadTeam(ctx, teamId, 'VIEWER'));
}

export async function updateTeam(ctx: Ctx, teamId: number, input: TeamUpdate): Promise<Team> {
  await loadTeam(ctx, teamId, 'ADMIN');
  let patch = ctx.deps.store.entities.team.patch({ teamId }).set({
    updatedAt: ctx.deps.clock.now().toISOString(),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(typeof input.description === 'string' ? { description: input.description } : {}),
  });
  if (input.description === null) patch = patch.remove(['description']);
  try {
    return toTeam(ctx.deps, (await patch.go({ response: 'all_new' })).data as TeamItem);
  } catch (err) {
    if (isConditionalFailure(err)) throw notFound('Team'); // deleted meanwhile
    throw err;
  }
}

/** Refused (409) while a policy targets the team; otherwise the members go with it. */
export async function deleteTeam(ctx: Ctx, teamId: number): Promise<void> {
  const team = await loadTeam(ctx, teamId, 'ADMIN');
  await refuseIfTargeted(ctx.deps.store, team.workspaceId, 'TEAM', teamId, `Team ${teamId}`);
  const { store } = ctx.deps;
  const members = await membersOf(ctx.deps, teamId);
  await untilProcessed(
    members.map((m) => ({ teamId, userId: m.userId })),
    async (keys) => (await store.entities.teamMember.delete(keys).go()).unprocessed,
    'team member deletes',
  );
  await store.entities.team.delete({ teamId }).go();
}

export async function addTeamMember(ctx: Ctx, input: { teamId: number; userId: number }): Promise<TeamMember> {
  const team = await loadTeam(ctx, input.teamId, 'ADMIN');
  await requireWorkspaceMembers(ctx.deps, team.workspaceId, [input.userId]);
  const iso = ctx.deps.clock.now().toISOString();
  const teamMemberId = await ctx.deps.store.nextId('teamMember');
  try {
    await ctx.deps.store.entities.teamMember.create({ teamId: input.teamId, userId: input.userId, teamMemberId, workspaceId: team.workspaceId, createdAt: iso }).go();
  } catch (err) {
    if (isConditionalFailure(err)) throw conflict('This user is already a member of the team');
    throw err;
  }
  const person = (await peopleById(ctx.deps, [input.userId])).get(input.userId);
  return { id: teamMemberId, teamId: input.teamId, userId: input.userId, email: person?.email ?? '', name: person?.name ?? null, createdAt: iso };
}

export async function removeTeamMember(ctx: Ctx, teamMemberId: number): Promise<void> {
  const member = (await ctx.deps.store.entities.teamMember.query.byMemberId({ teamMemberId }).go()).data[0];
  if (!member) throw notFound('Team member');
  await authorize(ctx.deps, ctx.actor, member.workspaceId, 'ADMIN', 'Team member');
  await ctx.deps.store.entities.teamMember.delete({ teamId: member.teamId, userId: member.userId }).go();
}
