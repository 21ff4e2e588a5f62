! f_constructs.f90 - OpenMP constructs from Fortran: !$omp parallel do
! with reduction(+:s) (and a schedule(dynamic) one), !$omp workshare on
! array syntax (an array assignment, a sum and a where), !$omp task with
! !$omp taskwait (a recursive sum over tasks), !$omp single copyprivate of
! a scalar and an array, !$omp sections and !$omp critical.  Results are
! exact.  On failure: one FAIL line on stderr and stop 1 (exit status 1).
program f_constructs
  use omp_lib
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  integer, parameter :: n = 10000
  integer :: i, bcast, total, secs
  integer :: arr(n), brr(n), vec(4)
  integer(kind=8) :: s, want
  logical :: bad

  ! parallel do with a reduction.
  s = 0
  !$omp parallel do reduction(+:s)
  do i = 1, n
    s = s + i
  end do
  !$omp end parallel do
  want = int(n, 8) * (n + 1) / 2
  call check(s == want, 'parallel do reduction(+:s) gave the wrong sum')
  s = 0
  !$omp parallel do reduction(+:s) schedule(dynamic, 7)
  do i = n, 1, -3
    s = s + 1
  end do
  !$omp end parallel do
  call check(s == (n + 2) / 3, 'parallel do schedule(dynamic) with a negative step: wrong count')

  ! workshare on array syntax.
  arr = 0
  !$omp parallel shared(arr, brr, total)
  !$omp workshare
  arr = (/ (i, i = 1, n) /)
  brr = 2 * arr + 1
  where (mod(arr, 2) == 0) brr = -brr
  total = sum(brr)
  !$omp end workshare
  !$omp end parallel
  call check(arr(n) == n .and. brr(1) == 3 .and. brr(2) == -5, 'workshare array assignment or where wrong')
  call check(total == -n, 'workshare sum wrong')

  ! Tasks and taskwait.
  total = 0
  !$omp parallel shared(total)
  !$omp single
  total = tsum(1, n)
  !$omp end single
  !$omp end parallel
  call check(total == n * (n + 1) / 2, 'a recursive sum over tasks with taskwait gave the wrong result')

  ! single copyprivate of a scalar and an array.
  bad = .false.
  !$omp parallel private(bcast, vec) shared(bad)
  bcast = -1
  vec = 0
  !$omp single
  bcast = 42
  vec = (/ 1, 2, 3, 4 /)
  !$omp end single copyprivate(bcast, vec)
  if (bcast /= 42 .or. vec(4) /= 4) then
    !$omp critical
    bad = .true.
    !$omp end critical
  end if
  !$omp end parallel
  call check(.not. bad, 'single copyprivate did not reach every thread')

  ! sections.
  secs = 0
  !$omp parallel sections reduction(+:secs)
  !$omp section
  secs = secs + 1
  !$omp section
  secs = secs + 10
  !$omp section
  secs = secs + 100
  !$omp end parallel sections
  call check(secs == 111, 'parallel sections reduction gave the wrong sum')

contains

  ! The sum lo..hi, split over tasks down to 500 numbers.
  recursive function tsum(lo, hi) result(r)
    integer, intent(in) :: lo, hi
    integer :: r, a, b, mid, k
    if (hi - lo < 500) then
      r = 0
      do k = lo, hi
        r = r + k
      end do
      return
    end if
    mid = (lo + hi) / 2
    !$omp task shared(a) firstprivate(lo, mid)
    a = tsum(lo, mid)
    !$omp end task
    !$omp task shared(b) firstprivate(mid, hi)
    b = tsum(mid + 1, hi)
    !$omp end task
    !$omp taskwait
    r = a + b
  end function tsum

  ! Print one FAIL line and stop with status 1 unless ok.
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      write (error_unit, '(a)') 'FAIL f_constructs: ' // what
      stop 1, quiet=.true.
    end if
  end subroutine check

end program f_constructs
