// Canary for the freestanding check: included by bad.hpp.
#pragma once
#include <map>
