// Canary for the freestanding check: exempt by the explicit list.
#pragma once
#include <vector>
