int placeholder_plan_unused = 0;
