// Include-cost baseline: a translation unit that includes only <array>.
#include <array>
