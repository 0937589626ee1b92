-- taskpress's fields from a Taskwarrior 3 (TaskChampion) store; dates are epoch seconds.
-- Not published: deleted tasks, and recurring templates (their instances are pending tasks).
SELECT uuid AS key,
       json_extract(data, '$.description') AS text,
       CASE json_extract(data, '$.priority') WHEN 'H' THEN 1 WHEN 'M' THEN 2
                                             WHEN 'L' THEN 3 END AS priority,
       CASE WHEN json_extract(data, '$.status') = 'completed' THEN 'done'
            WHEN json_extract(data, '$.start') IS NOT NULL THEN 'doing'
            ELSE 'todo' END AS state,
       json_extract(data, '$.project') AS "group",
       CAST(json_extract(data, '$.due') AS INTEGER) AS due,
       CAST(json_extract(data, '$.entry') AS INTEGER) AS created,
       CAST(json_extract(data, '$.start') AS INTEGER) AS started,
       CASE WHEN json_extract(data, '$.status') = 'completed'
            THEN CAST(json_extract(data, '$.end') AS INTEGER) END AS completed
  FROM tasks
 WHERE json_extract(data, '$.status') IN ('pending', 'waiting', 'completed')
 ORDER BY created;
