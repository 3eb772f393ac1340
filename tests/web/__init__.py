"""Tests of the web client (client_web/): Node for its board code, Chromium for the pages."""
