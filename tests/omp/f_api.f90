! f_api.f90 - the omp_lib module's routines in their Fortran spellings:
! omp_get_thread_num, omp_get_num_threads, omp_set_num_threads,
! omp_get_max_threads, omp_in_parallel, omp_set_dynamic / omp_get_dynamic,
! omp_get_num_procs, omp_get_level, omp_set_schedule / omp_get_schedule
! (omp_sched_kind), omp_get_wtime / omp_get_wtick, the other ICV, team,
! device and task routines (active level, ancestors, team size, thread
! limit, max-active-levels, in_final, cancellation, proc_bind, places,
! devices, teams, task priority), and the locks with
! omp_lock_kind and omp_nest_lock_kind (init, set, unset, test, destroy;
! omp_test_nest_lock's nesting count).  gfortran calls the runtime's
! omp_*_ entry points (pass by reference) and, for 8-byte integer
! arguments, the _8_ ones.  On failure: one FAIL line on stderr and
! "stop 1" (exit status 1; quiet= keeps gfortran's own "STOP 1" line off).
program f_api
  use omp_lib
  use, intrinsic :: iso_fortran_env, only: error_unit, int64
  implicit none
  integer :: n, max, count, got, chunk, me, nt, lv
  integer(kind=omp_lock_kind) :: lock
  integer(kind=omp_nest_lock_kind) :: nlock
  integer(kind=omp_sched_kind) :: kind
  integer(int64) :: big
  double precision :: t0, t1
  logical :: inpar, bad

  ! Threads and the team.
  max = omp_get_max_threads()
  call check(max >= 1, 'omp_get_max_threads() below 1')
  call check(.not. omp_in_parallel(), 'omp_in_parallel() true outside any region')
  call check(omp_get_num_threads() == 1, 'omp_get_num_threads() not 1 outside any region')
  call check(omp_get_num_procs() >= 1, 'omp_get_num_procs() below 1')
  call omp_set_num_threads(3)
  call check(omp_get_max_threads() == 3, 'omp_get_max_threads() not 3 after omp_set_num_threads(3)')
  n = 0
  count = 0
  bad = .false.
  inpar = .false.
  !$omp parallel shared(n, count, bad, inpar) private(me, nt, lv)
  !$omp atomic
  count = count + 1
  me = omp_get_thread_num()
  nt = omp_get_num_threads()
  lv = omp_get_level()
  if (me < 0 .or. me >= nt .or. lv /= 1) then
    !$omp critical
    bad = .true.
    !$omp end critical
  end if
  !$omp master
  n = omp_get_num_threads()
  inpar = omp_in_parallel()
  !$omp end master
  !$omp end parallel
  call check(n == 3 .and. count == 3, 'a region after omp_set_num_threads(3) did not have 3 threads')
  call check(inpar, 'omp_in_parallel() false in a team of 3')
  call check(.not. bad, 'a thread number out of range, or omp_get_level() not 1 in a region')
  big = 2
  call omp_set_num_threads(big)
  call check(omp_get_max_threads() == 2, 'omp_set_num_threads(2) not followed')
  call omp_set_num_threads(max)

  ! Dynamic adjustment and schedule.
  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), 'omp_get_dynamic() false after omp_set_dynamic(.true.)')
  call omp_set_dynamic(.false.)
  call check(.not. omp_get_dynamic(), 'omp_get_dynamic() true after omp_set_dynamic(.false.)')
  call omp_set_schedule(omp_sched_guided, 5)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_guided .and. chunk == 5, 'omp_get_schedule did not return guided,5')

  ! Time.
  t0 = omp_get_wtime()
  call check(omp_get_wtick() > 0.0d0, 'omp_get_wtick() not positive')
  t1 = omp_get_wtime()
  do while (t1 <= t0)
    t1 = omp_get_wtime()
    if (t1 - t0 < 0.0d0) call check(.false., 'omp_get_wtime() went back')
  end do

  ! The other ICV and device routines (one call per check: gfortran may
  ! skip the second of two impure calls in one condition).
  call check(omp_get_active_level() == 0, 'omp_get_active_level() not 0 outside any region')
  call check(omp_get_ancestor_thread_num(0) == 0, 'omp_get_ancestor_thread_num(0) not 0')
  call check(omp_get_team_size(0_int64) == 1, 'omp_get_team_size(0) (8-byte argument) not 1')
  call check(omp_get_thread_limit() >= 1, 'omp_get_thread_limit() below 1')
  call check(omp_get_supported_active_levels() >= 1, 'omp_get_supported_active_levels() below 1')
  call omp_set_max_active_levels(2)
  call check(omp_get_max_active_levels() == 2, 'omp_get_max_active_levels() not 2 after setting it')
  call check(.not. omp_in_final(), 'omp_in_final() true outside any task')
  call check(.not. omp_get_cancellation(), 'omp_get_cancellation() true without OMP_CANCELLATION')
  call check(omp_get_proc_bind() == omp_proc_bind_false, 'omp_get_proc_bind() not false')
  call check(omp_get_num_places() >= 0, 'omp_get_num_places() negative')
  call check(omp_is_initial_device(), 'omp_is_initial_device() false on the host')
  call check(omp_get_initial_device() == omp_get_num_devices(), &
    'omp_get_initial_device() is not omp_get_num_devices()')
  call check(omp_get_default_device() >= 0, 'omp_get_default_device() negative')
  call check(omp_get_max_task_priority() >= 0, 'omp_get_max_task_priority() negative')
  call check(omp_get_num_teams() == 1, 'omp_get_num_teams() not 1 outside teams')
  call check(omp_get_team_num() == 0, 'omp_get_team_num() not 0 outside teams')
  call omp_set_schedule(omp_sched_dynamic, big)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_dynamic .and. chunk == 2, &
    'omp_set_schedule with an 8-byte chunk did not give dynamic,2')

  ! Locks.
  call omp_init_lock(lock)
  count = 0
  !$omp parallel shared(lock, count)
  do got = 1, 1000
    call omp_set_lock(lock)
    count = count + 1
    call omp_unset_lock(lock)
  end do
  !$omp end parallel
  call check(count == 1000 * max, 'counter under omp_set_lock is wrong')
  call check(omp_test_lock(lock), 'omp_test_lock failed on a free lock')
  call omp_unset_lock(lock)
  call omp_destroy_lock(lock)

  call omp_init_nest_lock(nlock)
  call check(omp_test_nest_lock(nlock) == 1, 'omp_test_nest_lock on a free nested lock did not return 1')
  call omp_set_nest_lock(nlock)
  call check(omp_test_nest_lock(nlock) == 3, 'omp_test_nest_lock did not return nesting count 3')
  got = -1
  !$omp parallel num_threads(2) shared(nlock, got)
  if (omp_get_thread_num() == 1) got = omp_test_nest_lock(nlock)
  !$omp end parallel
  call check(got == 0 .or. got == -1, 'another thread got a nested lock the initial thread holds')
  call omp_unset_nest_lock(nlock)
  call omp_unset_nest_lock(nlock)
  call omp_unset_nest_lock(nlock)
  call omp_destroy_nest_lock(nlock)

contains

  ! Print one FAIL line and stop with status 1 unless ok.
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (error_unit, '(a)') 'FAIL f_api: ' // what
      stop 1, quiet=.true.
    end if
  end subroutine check

end program f_api
