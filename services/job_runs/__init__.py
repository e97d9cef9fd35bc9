"""What every scheduled job records: its runs, the lease that runs it once per interval
among processes, and the runs that did not run."""
