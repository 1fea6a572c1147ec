#!/usr/bin/env lua
-- A script run by TestDoFile: the first line is skipped like lua does.
greeting = "hello from a file"
