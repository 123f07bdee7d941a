// transferd's dashboard: pages are complete without this script; it only makes them live.
"use strict";
