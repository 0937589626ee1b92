-- taskpress's fields from todoman's cache.sqlite3; dates are epoch seconds (todoman writes
-- Python floats: whole seconds are stored as integers, CAST keeps it so).
SELECT t.uid AS key,
       t.summary AS text,
       CASE WHEN t.priority BETWEEN 1 AND 4 THEN 1 WHEN t.priority = 5 THEN 2
            WHEN t.priority BETWEEN 6 AND 9 THEN 3 END AS priority,
       CASE t.status WHEN 'IN-PROCESS' THEN 'doing' WHEN 'COMPLETED' THEN 'done'
                     WHEN 'CANCELLED' THEN 'cancelled' ELSE 'todo' END AS state,
       f.list_name AS "group",
       CAST(t.due AS INTEGER) AS due,
       CAST(t.created_at AS INTEGER) AS created,
       NULL AS started,
       CAST(t.completed_at AS INTEGER) AS completed
  FROM todos AS t JOIN files AS f ON f.path = t.file_path
 ORDER BY t.created_at;
