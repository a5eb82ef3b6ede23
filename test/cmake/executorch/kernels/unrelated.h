// Included by nothing: a change here must not re-run anything.
#pragma once
