-- The source of uuid-app/tasks.sqlite: the shape of most task apps written in the last ten
-- years (text UUID keys, text priorities, 0/1 completion, dates in INTEGER milliseconds since
-- 1970 UTC, projects in their own table). Built by Scripts/make-app-fixtures with the sqlite3
-- shell: sqlite3 -bail tasks.sqlite < schema.sql
PRAGMA foreign_keys = ON;

CREATE TABLE projects (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  color TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY NOT NULL,
  title TEXT NOT NULL,
  notes TEXT,
  completed INTEGER NOT NULL DEFAULT 0 CHECK (completed IN (0, 1)),
  priority TEXT CHECK (priority IN ('urgent', 'high', 'medium', 'low')),
  due_date INTEGER,
  project_id TEXT REFERENCES projects(id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  completed_at INTEGER
);
CREATE INDEX tasks_project ON tasks(project_id);

INSERT INTO projects (id, name, color, created_at) VALUES
  ('a7c1e0f2-3b4d-4e5f-8a9b-0c1d2e3f4a5b', 'Mobile app', '#3b82f6', 1740810000000),
  ('b8d2f1a3-4c5e-4f60-9bac-1d2e3f4a5b6c', 'Home', '#22c55e', 1740810000000);

INSERT INTO tasks (id, title, notes, completed, priority, due_date, project_id,
                   created_at, updated_at, completed_at) VALUES
  ('8f3a2c', 'Ship the onboarding flow', NULL, 0, 'urgent', 1742576400000,
   'a7c1e0f2-3b4d-4e5f-8a9b-0c1d2e3f4a5b', 1740906720000, 1740906720000, NULL),
  ('0c6e4d2a-5b7f-4e19-9a3d-1f2e3d4c5b6a', 'Fix login on Android 14', 'crash on resume', 1, 'high',
   1741564800000, 'a7c1e0f2-3b4d-4e5f-8a9b-0c1d2e3f4a5b', 1740996000000, 1741534200000,
   1741534200000),
  ('1d7f5e3b-6c80-4f2a-8b4e-2a3f4e5d6c7b', 'Write release notes', NULL, 0, 'medium', NULL,
   'a7c1e0f2-3b4d-4e5f-8a9b-0c1d2e3f4a5b', 1741087200000, 1741087200000, NULL),
  ('2e8a6f4c-7d91-4a3b-9c5f-3b4a5f6e7d8c', 'Buy birthday present 🎁', NULL, 1, 'low',
   1741737600000, 'b8d2f1a3-4c5e-4f60-9bac-1d2e3f4a5b6c', 1741201200000, 1741680300000,
   1741680300000),
  ('3f9b7a5d-8ea2-4b4c-8d6a-4c5b6a7f8e9d', 'Call grandma', NULL, 0, NULL, NULL,
   'b8d2f1a3-4c5e-4f60-9bac-1d2e3f4a5b6c', 1741247100000, 1741247100000, NULL),
  ('4a0c8b6e-9fb3-4c5d-9e7b-5d6c7b8a9f0e', 'Read “The Pragmatic Programmer”', NULL, 0, 'low',
   1745971200000, NULL, 1741385400000, 1741385400000, NULL),
  ('5b1d9c7f-a0c4-4d6e-8f8c-6e7d8c9b0a1f', 'Renew car insurance', NULL, 0, 'high', 1743465540000,
   'b8d2f1a3-4c5e-4f60-9bac-1d2e3f4a5b6c', 1741438800000, 1741438800000, NULL),
  ('6C2EAD80-B1D5-4E7F-9A9D-7F8E9DAC1B2A', 'Migrate the database', NULL, 1, 'urgent',
   1741975200000, 'a7c1e0f2-3b4d-4e5f-8a9b-0c1d2e3f4a5b', 1740810600000, 1741882800000,
   1741882800000);
