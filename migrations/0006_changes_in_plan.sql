-- 0006: a recorded plan's changes are stored once, in the plan.
--
-- plans.changes_in_plan = 1: the plan's changes have no rows in changes;
-- each change (id, kind, action, resource, before and after state) is the
-- one in plans.plan_json (the redacted plan, which the row's hash covers),
-- and readers take them from there. NULL (every plan recorded before this
-- version): the changes rows hold them (with their states, or without when
-- states_in_plan = 1).
ALTER TABLE plans ADD COLUMN changes_in_plan INTEGER;
