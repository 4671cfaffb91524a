-- 0004: a recorded plan's change states are stored once, in the plan.
--
-- plans.states_in_plan = 1: the changes rows of this plan's run leave
-- before_state and after_state NULL; each change's planned states are the
-- ones in plans.plan_json (the redacted plan, which the row's hash covers),
-- and readers take them from there, matched by change id. NULL (every plan
-- recorded before this version): the changes rows hold the states.
ALTER TABLE plans ADD COLUMN states_in_plan INTEGER;
