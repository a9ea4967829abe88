import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../../runtime/index.js';

// ClickUp connector (API v2 + the v3 Docs endpoints). Response bodies follow the examples of the
// vendor spec (shared/vendor-specs/clickup/openapi-v2.json); the Docs bodies follow ClickUp's v3
// reference (developer.clickup.com/reference/searchdocspublic and getdocpublic).

const API = 'https://api.clickup.com';
const TOKEN = 'pk_4753994_EXP7MPOJ7XQM5UJDV2M45MPF0YHH5YHO';

type Rec = Record<string, any>;

const clickup = () => createConnector('clickup', { credentials: { api_token: TOKEN }, http: { retries: 0 } });

/** A scope that only matches requests carrying the personal token alone (no Bearer prefix). */
const api = () => nock(API).matchHeader('authorization', TOKEN).matchHeader('accept', 'application/json');

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

const USER = {
  id: 123,
  username: 'John Doe',
  email: 'user@company.com',
  color: '#000000',
  profilePicture: 'https://clickup.com/avatar.jpg',
  initials: 'JD',
  week_start_day: 0,
  global_font_support: false,
  timezone: 'America/Los_Angeles',
};
const TEAM = {
  id: '1234',
  name: 'My ClickUp Workspace',
  color: '#000000',
  avatar: 'https://clickup.com/avatar.jpg',
  members: [{ user: { id: 123, username: 'John Doe', color: '#000000', profilePicture: 'https://clickup.com/avatar.jpg' } }],
};
const SPACE = {
  id: '790',
  name: 'Updated Space Name',
  private: false,
  color: null,
  avatar: 'https://attachments.clickup.com/profilePictures/12312312_HoB.jpg',
  admin_can_manage: true,
  archived: false,
  members: [],
  statuses: [
    { status: 'to do', type: 'open', orderindex: 0, color: '#d3d3d3' },
    { status: 'complete', type: 'closed', orderindex: 1, color: '#6bc950' },
  ],
  multiple_assignees: false,
  features: {
    due_dates: { enabled: false, start_date: false, remap_due_dates: false, remap_closed_due_date: false },
    time_tracking: { enabled: false },
    tags: { enabled: false },
    time_estimates: { enabled: false },
    checklists: { enabled: true },
  },
};
const FOLDER = {
  id: '457',
  name: 'Updated Folder Name',
  orderindex: 0,
  override_statuses: false,
  hidden: false,
  space: { id: '789', name: 'Space Name', access: true },
  task_count: '0',
  lists: [],
};
const LIST = {
  id: '124',
  name: 'Updated List Name',
  orderindex: 1,
  content: 'Updated List Content',
  status: { status: 'red', color: '#e50000', hide_label: true },
  priority: { priority: 'high', color: '#f50000' },
  assignee: null,
  task_count: null,
  due_date: '1567780450202',
  start_date: null,
  folder: { id: '456', name: 'Folder Name', hidden: false, access: true },
  space: { id: '789', name: 'Space Name', access: true },
  archived: false,
  override_statuses: false,
  permission_level: 'create',
};
const task = (id: string, name: string): Rec => ({
  id,
  custom_id: null,
  custom_item_id: 0,
  name,
  text_content: 'Users are unable to log in when SSO is enabled.',
  description: 'Users are unable to log in when SSO is enabled.',
  status: { id: 'p7001234_FxGmgrnk', status: 'in progress', color: '#d3d3d3', orderindex: 1, type: 'custom' },
  orderindex: '1.00000000000000000000000000000000',
  date_created: '1567780450202',
  date_updated: '1567780450202',
  date_closed: null,
  date_done: null,
  archived: false,
  creator: { id: 183, username: 'Alex Johnson', color: '#827718', email: 'user@company.com', profilePicture: null },
  assignees: [],
  group_assignees: [],
  watchers: [],
  checklists: [],
  tags: [{ name: 'bug', tag_fg: '#EA80FC', tag_bg: '#EA80FC', creator: 183 }],
  parent: null,
  top_level_parent: null,
  priority: { color: '#f8ae00', id: '3', orderindex: '3', priority: 'normal' },
  due_date: '1508369194377',
  start_date: null,
  points: 3,
  time_estimate: '8640000',
  time_spent: 0,
  custom_fields: [],
  dependencies: [],
  linked_tasks: [],
  locations: [],
  team_id: '1234',
  url: `https://app.clickup.com/t/${id}`,
  permission_level: 'create',
  list: { id: '124', name: 'Updated List Name', access: true },
  project: { id: '456', name: 'Folder Name', hidden: false, access: true },
  folder: { id: '456', name: 'Folder Name', hidden: false, access: true },
  space: { id: '789' },
});
const T1 = task('9hx', 'Fix login bug');
const T2 = task('9hz', 'Second task');
const T3 = task('9j0', 'Third task');
const comment = (id: string, text: string): Rec => ({
  id,
  comment: [{ text }],
  comment_text: text,
  user: {
    id: 183,
    username: 'John Doe',
    initials: 'JD',
    email: 'johndoe@gmail.com',
    color: '#827718',
    profilePicture: 'https://attachments-public.clickup.com/profilePictures/183_abc.jpg',
  },
  resolved: false,
  assignee: null,
  assigned_by: null,
  reactions: [],
  date: '1568036964079',
  reply_count: '0',
});
const GOAL_LIST_ITEM = {
  id: 'e53a033c-900e-462d-a849-4a216b06d930',
  pretty_id: '6',
  name: 'Goal ABC',
  team_id: '512',
  creator: 182,
  owner: null,
  color: '#32a852',
  date_created: '1568044355026',
  start_date: null,
  due_date: '1568036964079',
  description: 'Updated Goal Description',
  private: false,
  archived: false,
  multiple_owners: true,
  editor_token: 'goal:792c3027',
  date_updated: '1626130440221',
  last_update: '1626132992152',
  folder_id: null,
  pinned: false,
  owners: [],
  key_result_count: 1,
  members: [
    {
      id: 182,
      username: 'Jane Doe',
      email: 'janedoe@gmail.com',
      color: '#827718',
      permission_level: 'edit',
      profilePicture: 'https://attachments-public.clickup.com/profilePictures/profile.jpg',
      initials: 'JD',
      isCreator: true,
    },
  ],
  group_members: [],
  percent_completed: 0,
};
const GOAL = {
  id: 'e53a033c-900e-462d-a849-4a216b06d930',
  name: 'Goal Name',
  team_id: '512',
  date_created: '1568044355026',
  start_date: null,
  due_date: '1568036964079',
  description: 'Goal Description',
  private: false,
  archived: false,
  creator: 183,
  color: '#32a852',
  pretty_id: '6',
  multiple_owners: true,
  folder_id: null,
  members: [],
  owners: [
    {
      id: 183,
      username: 'John Doe',
      initials: 'JD',
      email: 'johndoe@gmail.com',
      color: '#827718',
      profilePicture: 'https://attachments-public.clickup.com/profilePictures/183_abc.jpg',
    },
  ],
  key_results: [],
  percent_completed: 0,
  history: [],
  pretty_url: 'https://app.clickup.com/512/goals/6',
};
const VIEW = {
  id: '3c-105',
  name: 'New View Name',
  type: 'list',
  parent: { id: '512', type: 7 },
  grouping: { field: 'status', dir: 1, collapsed: [], ignore: false },
  divide: { field: null, dir: null, collapsed: [] },
  sorting: { fields: [] },
  filters: { op: 'AND', fields: [], search: '', show_closed: false },
  columns: { fields: [] },
  team_sidebar: { assignees: [], assigned_comments: false, unassigned_tasks: false },
  settings: {
    show_task_locations: false,
    show_subtasks: 3,
    show_subtask_parent_names: false,
    show_closed_subtasks: false,
    show_assignees: true,
    show_images: true,
    collapse_empty_columns: null,
    me_comments: true,
    me_subtasks: true,
    me_checklists: true,
  },
};
const TIME_ENTRY = {
  id: '1963465985517105840',
  task: {
    id: '1vwwavv',
    custom_id: 'JOSH-917',
    name: 'woof',
    status: { status: 'open yes', color: '#d3d3d3', type: 'open', orderindex: 0 },
    custom_type: null,
  },
  wid: '300702',
  user: {
    id: 1,
    username: 'first_name last_name',
    email: 'test@gmail.com',
    color: '#08c7e0',
    initials: 'JK',
    profilePicture: 'https://attachments.clickup.com/profilePictures/1_HHk.jpg',
  },
  billable: false,
  start: '1592841559129',
  end: '1592845899021',
  duration: '4339892',
  description: '',
  tags: [],
  source: 'clickup',
  at: '1592845899021',
  task_location: { list_id: 1560300071, folder_id: 468300080, space_id: 22800253, list_name: 'List', folder_name: 'Folder', space_name: 'Space' },
  task_tags: [],
  task_url: 'https://staging.clickup.com/t/1vwwavv',
};
const MEMBER = {
  id: 812,
  username: 'John Doe',
  email: 'john@example.com',
  color: '#FFFFFF',
  initials: 'JD',
  profilePicture: 'https://attachments-public.clickup.com/profilePictures/812_nx1.jpg',
  profileInfo: {
    display_profile: null,
    verified_ambassador: null,
    verified_consultant: null,
    top_tier_user: null,
    viewed_verified_ambassador: null,
    viewed_verified_consultant: null,
    viewed_top_tier_user: null,
  },
};
const doc = (id: string, name: string): Rec => ({
  id,
  date_created: 1700000000000,
  date_updated: 1700000500000,
  name,
  type: 1,
  parent: { id: '1234', type: 12 },
  public: false,
  workspace_id: 1234,
  creator: 183,
  deleted: false,
  archived: false,
});

describe('clickup auth', () => {
  it('sends the personal token alone in the Authorization header (user get)', async () => {
    const scope = api().get('/api/v2/user').reply(200, { user: USER });
    const res = await clickup().execute('user', 'get', {});
    expect(res).toEqual({ data: USER });
    expect(scope.isDone()).toBe(true);
  });

  it('sends an OAuth access token as Bearer (OAuth2 Access Token option)', async () => {
    const scope = nock(API)
      .matchHeader('authorization', 'Bearer oauth-access-tok')
      .get('/api/v2/team')
      .reply(200, { teams: [TEAM] });
    const oauth = createConnector('clickup', { credentials: { option_title: 'OAuth2 Access Token', access_token: 'oauth-access-tok' } });
    const res = await oauth.execute('teams', 'list', {});
    expect(res.data).toEqual([TEAM]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// [entity, params, request path under https://api.clickup.com, query, response body, records]
const LISTS: Array<[string, Rec, string, Rec, Rec, Rec[]]> = [
  ['teams', {}, '/api/v2/team', {}, { teams: [TEAM] }, [TEAM]],
  ['spaces', { team_id: '1234' }, '/api/v2/team/1234/space', {}, { spaces: [SPACE] }, [SPACE]],
  ['folders', { space_id: '789' }, '/api/v2/space/789/folder', {}, { folders: [FOLDER] }, [FOLDER]],
  ['lists', { folder_id: '456' }, '/api/v2/folder/456/list', {}, { lists: [LIST] }, [LIST]],
  [
    'comments',
    { task_id: '9hz' },
    '/api/v2/task/9hz/comment',
    {},
    { comments: [comment('458', 'Task comment content')] },
    [comment('458', 'Task comment content')],
  ],
  [
    'comments',
    { task_id: '9hz', start: 1568036964079, start_id: '458' },
    '/api/v2/task/9hz/comment',
    { start: '1568036964079', start_id: '458' },
    { comments: [comment('457', 'Older comment')] },
    [comment('457', 'Older comment')],
  ],
  ['goals', { team_id: '512' }, '/api/v2/team/512/goal', {}, { goals: [GOAL_LIST_ITEM], folders: [] }, [GOAL_LIST_ITEM]],
  ['views', { team_id: '512' }, '/api/v2/team/512/view', {}, { views: [VIEW] }, [VIEW]],
  ['time_tracking', { team_id: '300702' }, '/api/v2/team/300702/time_entries', {}, { data: [TIME_ENTRY] }, [TIME_ENTRY]],
  [
    'time_tracking',
    { team_id: '300702', start_date: 1592784000000, end_date: 1592870400000, assignee: '1,2' },
    '/api/v2/team/300702/time_entries',
    { start_date: '1592784000000', end_date: '1592870400000', assignee: '1,2' },
    { data: [TIME_ENTRY] },
    [TIME_ENTRY],
  ],
  ['members', { task_id: '9hz' }, '/api/v2/task/9hz/member', {}, { members: [MEMBER] }, [MEMBER]],
];

describe('clickup list (not paginated)', () => {
  it.each(LISTS)('%s list %j -> GET %s', async (entity, params, path, query, body, records) => {
    const scope = api().get(path).query(query).reply(200, body);
    const res = await clickup().execute(entity, 'list', params);
    expect(res).toEqual({ data: records });
    expect(scope.isDone()).toBe(true);
  });
});

// [entity, params, request path, response body, record]
const GETS: Array<[string, Rec, string, Rec, Rec]> = [
  ['spaces', { space_id: '790' }, '/api/v2/space/790', SPACE, SPACE],
  ['folders', { folder_id: '457' }, '/api/v2/folder/457', FOLDER, FOLDER],
  ['lists', { list_id: '124' }, '/api/v2/list/124', LIST, LIST],
  ['tasks', { task_id: '9hx' }, '/api/v2/task/9hx', T1, T1],
  ['goals', { goal_id: GOAL.id }, `/api/v2/goal/${GOAL.id}`, { goal: GOAL }, GOAL],
  ['views', { view_id: '3c-105' }, '/api/v2/view/3c-105', { view: VIEW }, VIEW],
  [
    'time_tracking',
    { team_id: '300702', time_entry_id: '1963465985517105840' },
    '/api/v2/team/300702/time_entries/1963465985517105840',
    { data: TIME_ENTRY },
    TIME_ENTRY,
  ],
  [
    'docs',
    { workspace_id: '1234', doc_id: '8cdu22c-13133' },
    '/api/v3/workspaces/1234/docs/8cdu22c-13133',
    doc('8cdu22c-13133', 'Engineering Handbook'),
    doc('8cdu22c-13133', 'Engineering Handbook'),
  ],
];

describe('clickup get', () => {
  it.each(GETS)('%s get %j -> GET %s', async (entity, params, path, body, record) => {
    const scope = api().get(path).reply(200, body);
    const res = await clickup().execute(entity, 'get', params);
    expect(res).toEqual({ data: record });
    expect(scope.isDone()).toBe(true);
  });
});

describe('clickup tasks (page_number pagination, block { page, last_page })', () => {
  it('walks the tasks of a list: next_params.page until last_page is true', async () => {
    const scope = api()
      .get('/api/v2/list/124/task')
      .reply(200, { tasks: [T1], last_page: false })
      .get('/api/v2/list/124/task')
      .query({ page: '1' })
      .reply(200, { tasks: [T2], last_page: true });

    const page1 = await clickup().execute('tasks', 'list', { list_id: '124' });
    expect(page1.data).toEqual([T1]);
    expect(page1.pagination).toEqual({ page: 1, last_page: false });
    expect(page1.next_params).toEqual({ page: 1 });

    const page2 = await clickup().execute('tasks', 'list', { list_id: '124', ...page1.next_params });
    expect(page2.data).toEqual([T2]);
    expect(page2.pagination).toEqual({ page: null, last_page: true });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('api_search sends the filters with ClickUp wire names (statuses[], assignees[] ...) and walks pages', async () => {
    const seen: string[] = [];
    const scope = api()
      .get((uri) => uri.startsWith('/api/v2/team/1234/task?') && seen.push(uri) > 0)
      .twice()
      .reply(200, (uri) => (uri.includes('page=1') ? { tasks: [] } : { tasks: [T1, T3] }));

    const params = {
      team_id: '1234',
      statuses: ['to do', 'in progress'],
      assignees: ['183'],
      tags: ['bug'],
      list_ids: ['124'],
      include_closed: true,
      order_by: 'updated',
      date_updated_gt: 1567780450202,
      custom_fields: [{ field_id: 'd2ab17e0-41d3-4d28-bdbb-f3f0f2c62f8b', operator: '=', value: 'Fix' }],
    };
    const page1 = await clickup().execute('tasks', 'api_search', params);
    expect(page1.data).toEqual([T1, T3]);
    expect(page1.pagination).toEqual({ page: 1, last_page: null });
    expect(page1.next_params).toEqual({ page: 1 });

    const page2 = await clickup().execute('tasks', 'api_search', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([]);
    expect(page2.pagination).toEqual({ page: null, last_page: null });
    expect(page2.next_params).toBeUndefined();

    const cf = encodeURIComponent(JSON.stringify(params.custom_fields)).replace(/%20/g, '+');
    const expected =
      '/api/v2/team/1234/task?statuses%5B%5D=to+do&statuses%5B%5D=in+progress&assignees%5B%5D=183&tags%5B%5D=bug' +
      `&list_ids%5B%5D=124&include_closed=true&order_by=updated&date_updated_gt=1567780450202&custom_fields=${cf}`;
    expect(seen).toEqual([expected, `${expected}&page=1`]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects an unknown order_by before any request', async () => {
    await expect(clickup().execute('tasks', 'api_search', { team_id: '1234', order_by: 'name' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'order_by', rule: 'enum' })],
    });
  });
});

describe('clickup tasks get options (custom_task_ids, team_id, include_subtasks)', () => {
  it('sends include_subtasks and returns the task with its subtasks', async () => {
    const withSubtasks = { ...T1, subtasks: [{ ...T2, parent: T1.id, top_level_parent: T1.id }] };
    const scope = api().get('/api/v2/task/9hx').query({ include_subtasks: 'true' }).reply(200, withSubtasks);
    const res = await clickup().execute('tasks', 'get', { task_id: '9hx', include_subtasks: true });
    expect(res).toEqual({ data: withSubtasks });
    expect(scope.isDone()).toBe(true);
  });

  it('reads a task by its custom id with custom_task_ids=true and team_id', async () => {
    const custom = { ...T1, custom_id: 'DEV-42' };
    const scope = api().get('/api/v2/task/DEV-42').query({ custom_task_ids: 'true', team_id: '1234' }).reply(200, custom);
    const res = await clickup().execute('tasks', 'get', { task_id: 'DEV-42', custom_task_ids: true, team_id: '1234' });
    expect(res).toEqual({ data: custom });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a non-numeric team_id and a non-boolean custom_task_ids before any request', async () => {
    const scope = nock(API);
    await expect(clickup().execute('tasks', 'get', { task_id: 'DEV-42', custom_task_ids: 'yes', team_id: 'acme' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'custom_task_ids', rule: 'type' }),
        expect.objectContaining({ field: 'team_id', rule: 'pattern' }),
      ]),
    });
    expect(scope.isDone()).toBe(true);
  });

  it('api_search has no search or priority filter (Get Filtered Team Tasks lacks them): refused unsent', async () => {
    const scope = nock(API);
    await expect(clickup().execute('tasks', 'api_search', { team_id: '1234', search: 'login', priority: 1 })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: expect.arrayContaining([expect.objectContaining({ field: 'search' }), expect.objectContaining({ field: 'priority' })]),
    });
    expect(scope.isDone()).toBe(true);
  });
});

describe('clickup view_tasks', () => {
  it('list walks the tasks of a view from page 0 (page is always sent)', async () => {
    const scope = api()
      .get('/api/v2/view/3c-105/task')
      .query({ page: '0' })
      .reply(200, { tasks: [T1], last_page: false })
      .get('/api/v2/view/3c-105/task')
      .query({ page: '1' })
      .reply(200, { tasks: [], last_page: true });

    const page1 = await clickup().execute('view_tasks', 'list', { view_id: '3c-105' });
    expect(page1.data).toEqual([T1]);
    expect(page1.pagination).toEqual({ page: 1, last_page: false });
    expect(page1.next_params).toEqual({ page: 1 });

    const page2 = await clickup().execute('view_tasks', 'list', { view_id: '3c-105', ...page1.next_params });
    expect(page2.data).toEqual([]);
    expect(page2.pagination).toEqual({ page: null, last_page: true });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('get (the get variant for view tasks) returns the tasks of one view as a list', async () => {
    const scope = api()
      .get('/api/v2/view/3c-105/task')
      .query({ page: '2' })
      .reply(200, { tasks: [T2, T3], last_page: true });
    const res = await clickup().execute('view_tasks', 'get', { view_id: '3c-105', page: 2 });
    expect(res.data).toEqual([T2, T3]);
    expect(res.pagination).toEqual({ page: null, last_page: true });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('clickup comments', () => {
  it('get returns the threaded replies of a comment', async () => {
    const replies = [comment('459', 'First reply'), comment('460', 'Second reply')];
    const scope = api().get('/api/v2/comment/458/reply').reply(200, { comments: replies });
    const res = await clickup().execute('comments', 'get', { comment_id: '458' });
    expect(res).toEqual({ data: replies });
    expect(scope.isDone()).toBe(true);
  });

  it('create posts the comment (notify_all false when omitted) and returns { id, hist_id, date }', async () => {
    const created = { id: '458', hist_id: '26508', date: 1568036964079 };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/api/v2/task/9hz/comment', { comment_text: 'Task comment content', assignee: 183, notify_all: false })
      .reply(200, created);
    const res = await clickup().execute('comments', 'create', { task_id: '9hz', comment_text: 'Task comment content', assignee: 183 });
    expect(res).toEqual({ data: created });
    expect(scope.isDone()).toBe(true);
  });

  it('update sends comment_text, assignee and resolved (all required by ClickUp) with PUT and returns {}', async () => {
    const scope = api().put('/api/v2/comment/458', { comment_text: 'Updated comment content', assignee: 183, resolved: true }).reply(200, {});
    const res = await clickup().execute('comments', 'update', { comment_id: '458', comment_text: 'Updated comment content', assignee: 183, resolved: true });
    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it('update without comment_text, assignee and resolved is refused before sending', async () => {
    const err = await clickup()
      .execute('comments', 'update', { comment_id: '458', comment_text: 'Only text' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ValidationError' });
    expect((err as { issues: Array<{ field: string; rule: string }> }).issues.map((i) => [i.field, i.rule])).toEqual([
      ['assignee', 'required'],
      ['resolved', 'required'],
    ]);
  });
});

describe('clickup docs (API v3, cursor pagination, block { next_cursor })', () => {
  it('walks two pages of docs with next_params.cursor', async () => {
    const d1 = doc('8cdu22c-13133', 'Engineering Handbook');
    const d2 = doc('8cdu22c-13134', 'Release Notes');
    const scope = api()
      .get('/api/v3/workspaces/1234/docs')
      .query({ limit: '10' })
      .reply(200, { docs: [d1], next_cursor: 'eyJwYWdlIjoyfQ==' })
      .get('/api/v3/workspaces/1234/docs')
      .query({ limit: '10', cursor: 'eyJwYWdlIjoyfQ==' })
      .reply(200, { docs: [d2] });

    const page1 = await clickup().execute('docs', 'list', { workspace_id: '1234', limit: 10 });
    expect(page1.data).toEqual([d1]);
    expect(page1.pagination).toEqual({ next_cursor: 'eyJwYWdlIjoyfQ==' });
    expect(page1.next_params).toEqual({ cursor: 'eyJwYWdlIjoyfQ==' });

    const page2 = await clickup().execute('docs', 'list', { workspace_id: '1234', limit: 10, ...page1.next_params });
    expect(page2.data).toEqual([d2]);
    expect(page2.pagination).toEqual({ next_cursor: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});
