"""What the tests share: real server processes and their clients, the one ``until``, the
CLI, deals, pages and browsers. A test module imports from here (and fixtures from its
``conftest.py``), never from another test module."""
