-- taskpress's fields from the UUID-keyed app (dates converted from milliseconds to seconds).
SELECT t.id AS key,
       t.title AS text,
       CASE t.priority WHEN 'urgent' THEN 1 WHEN 'high' THEN 2
                       WHEN 'medium' THEN 3 WHEN 'low' THEN 4 END AS priority,
       CASE WHEN t.completed = 1 THEN 'done' ELSE 'todo' END AS state,
       p.name AS "group",
       t.due_date / 1000 AS due,
       t.created_at / 1000 AS created,
       NULL AS started,
       t.completed_at / 1000 AS completed
  FROM tasks AS t LEFT JOIN projects AS p ON p.id = t.project_id
 ORDER BY t.created_at;
