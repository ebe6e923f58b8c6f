int placeholder_spec_unused = 0;
