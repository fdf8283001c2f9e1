/* capture: run the workload once, writing snapshots to argv[1]. */
#include <stdio.h>

#include "capture.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SNAPSHOT-FILE\n", argv[0]);
		return 2;
	}
	snap_begin(argv[1]);
	int r = run_all(3);
	snap_end();
	return r == 0 ? 1 : 0; /* use the result so nothing is optimised away */
}
